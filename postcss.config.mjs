// Tailwind CSS 4 runs as a single PostCSS plugin (it handles imports and prefixing itself).
export default {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};
