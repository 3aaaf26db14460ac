import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { layersPlugin } from "./lint/layers.mjs";

// testing.ts modules (fixtures, throwaway stores) are for tests only: production code never loads them.
const TESTING_ONLY = {
  group: ["**/testing", "@/lib/**/testing", "**/*-testing", "@/lib/**/*-testing"],
  message: "testing.ts (and *-testing.ts) modules are for tests only.",
};

// The core throws coded errors (lib/errors.ts) and never speaks HTTP: statuses live in lib/http. The
// request handlers that live beside their core code are the exceptions, listed here by file.
const HTTP_HANDLERS = [
  "lib/auth/sign-in.ts",
  "lib/query/corpus-upload.ts",
  "lib/query/library-file.ts",
  "lib/query/lineage.ts",
  "lib/query/request.ts",
  "lib/query/types.ts", // the API's error body type, shared with the browser
  "lib/security/screen.ts",
];
const NO_HTTP = {
  group: ["@/lib/http", "@/lib/http/*", "../http", "../http/*"],
  message:
    "The core carries error codes, not HTTP (lib/errors.ts; statuses: lib/http/status.ts). A request handler in lib/ is listed in HTTP_HANDLERS (eslint.config.mjs).",
};

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".next-*/", "lib/generated/", "next-env.d.ts", "test-results/", "playwright-report/", ".graft/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    rules: { "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }] },
  },
  {
    // React lives in app/ and components/ only (lib/ is framework-free): the hooks rules, whose
    // compiler-based checks were ~80% of the whole lint's time, read only those folders.
    files: ["{app,components}/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // The layer rule: a lib/ folder imports only lower layers (table and reasons in lint/layers.mjs).
    files: ["lib/**/*.{ts,tsx,js,mjs}"],
    plugins: { layers: layersPlugin },
    rules: { "layers/import-direction": "error" },
  },
  {
    // Each lib/ folder's index.ts is its public surface: no deep imports from outside the folder
    // (lint/layers.mjs: the exceptions and why; scripts/ and e2e/ are not checked).
    files: ["**/*.{ts,tsx,js,mjs}"],
    ignores: ["scripts/**", "e2e/**", "lib/generated/**"],
    plugins: { layers: layersPlugin },
    rules: { "layers/public-surface": "error" },
  },
  {
    files: ["{lib,app,components,workers}/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}", "**/*.smoke.test.ts", "**/testing.ts", "**/*-testing.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [TESTING_ONLY] }] },
  },
  {
    // Later than the entry above, so it repeats TESTING_ONLY: the rule's options replace, never merge.
    // Tests may import lib/http: they check the answer a client sees.
    files: ["lib/**/*.{ts,tsx}"],
    ignores: ["lib/http/**", ...HTTP_HANDLERS, "**/*.test.{ts,tsx}", "**/*.smoke.test.ts", "**/testing.ts", "**/*-testing.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [TESTING_ONLY, NO_HTTP] }] },
  },
  {
    // A function over 100 lines hides steps that deserve names (issue 30). One that is better
    // whole says why on an eslint-disable line above it (lint/function-length.test.ts checks
    // that each has a reason). Tests are lists of cases and are not counted.
    files: ["**/*.{ts,tsx,js,mjs,cjs}"],
    ignores: ["**/*.test.{ts,tsx}", "**/*.smoke.test.ts", "e2e/**"],
    rules: { "max-lines-per-function": ["error", { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", AbortController: "readonly" } },
  },
);
