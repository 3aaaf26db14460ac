import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { layersPlugin } from "./lint/layers.mjs";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".next-*/", "lib/generated/", "next-env.d.ts", "test-results/", "playwright-report/", ".graft/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The layer rule: a lib/ folder imports only lower layers (table and reasons in lint/layers.mjs).
    files: ["lib/**/*.{ts,tsx,js,mjs}"],
    plugins: { layers: layersPlugin },
    rules: { "layers/import-direction": "error" },
  },
  {
    // Test helpers (testing.ts: fixtures, throwaway stores) are for tests only: production code never loads them.
    files: ["{lib,app,components,workers}/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "**/*.smoke.test.ts", "**/testing.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/testing", "@/lib/**/testing"], message: "testing.ts modules are for tests only." }] }],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
