// The house rules that a type check cannot see, then typescript-eslint and react-hooks. Reasons: docs/architecture.md
// ("Lint rules"). Which folder may import which is held by dependency-cruiser (.dependency-cruiser.cjs), not here.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import refusalsByReason from "./lint/refusalsByReason.js";

/** The house's own rules (lint/), one plugin object for every block that uses one. */
const house = { rules: { "refusals-by-reason": refusalsByReason } };

const root = import.meta.dirname;

/**
 * The one browser-safe folder: schemas with their message texts, pure rules, plain types, money, the form kit and
 * static content. widgets/, views/ and components/ import from src/ only this folder, and it imports only itself
 * (.dependency-cruiser.cjs); here it is kept free of server packages.
 */
const BROWSER_SAFE = "src/shared/**/*.{ts,tsx}";

/** Browser-rendered code: pages (views/), the components both pages and islands use (components/), islands (widgets/). */
const VIEWS = "views/**/*.{ts,tsx}";
const COMPONENTS = "components/**/*.{ts,tsx}";
const WIDGETS = "widgets/**/*.{ts,tsx}";

/** Types for the type-aware rules, from tsconfig.json through the TypeScript project service. */
const TYPE_INFORMATION = { parserOptions: { projectService: true, tsconfigRootDir: root } };

/** Where typescript-eslint's recommended type-checked rules run (with type information from tsconfig.json). */
const TYPE_CHECKED = ["src/**/*.{ts,tsx}", VIEWS, COMPONENTS, WIDGETS, "test/**/*.{ts,tsx}"];

/** Packages that only make sense on the server; the browser bundle must never pull them in. */
const SERVER_PACKAGES = [
  "express", "express-session", "express-rate-limit", "connect-redis", "rate-limit-redis", "redis", "knex", "mysql2",
  "better-sqlite3", "stripe", "nodemailer", "pino", "pino-http", "helmet", "csrf-sync", "tsx",
  "@shopify/storefront-api-client", "@shopify/admin-api-client", "react-dom/server",
];

export default defineConfig(
  { ignores: ["node_modules/", "public/build/", "build/", ".cache/", "var/", "coverage/", "test-results/"] },
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parser: tseslint.parser, sourceType: "module" },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    name: "house/browser-packages",
    files: [WIDGETS, COMPONENTS, BROWSER_SAFE],
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", {
        paths: SERVER_PACKAGES.map((name) => ({
          name,
          message: "Browser code (widgets/, components/ and src/shared/) may not import a server-only package.",
          allowTypeImports: true,
        })),
        patterns: [{
          group: ["node:*"],
          message: "Browser code (widgets/, components/ and src/shared/) may not import Node built-ins.",
          allowTypeImports: true,
        }],
      }],
    },
  },
  {
    name: "house/no-env-in-views",
    files: [VIEWS, COMPONENTS, WIDGETS],
    rules: {
      "no-restricted-properties": ["error", {
        object: "process",
        property: "env",
        message: "views/, components/ and widgets/ never read process.env: settings come from src/config.ts and reach them as props.",
      }],
    },
  },
  {
    name: "house/domain-errors-in-use-cases",
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/http/**", "src/**/routes.{ts,tsx}", "src/**/routes/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          regex: "/http/errors\\.ts$",
          importNames: ["HttpError"],
          message: "Use cases throw a DomainError (src/errors.ts); the error handler maps it to a status. HttpError belongs to src/http/ and routes.",
        }],
      }],
    },
  },
  {
    name: "house/refusals-by-reason",
    files: ["src/**/*.{ts,tsx}", VIEWS, COMPONENTS, WIDGETS],
    // The foundations recognise a driver's or a library's own errors, whose only mark may be their text.
    ignores: ["src/db/**", "src/redis.ts", "src/http/errors.ts", "src/payments/offline/**"],
    plugins: { house },
    rules: { "house/refusals-by-reason": "error" },
  },
  {
    name: "house/session-keys-in-one-place",
    files: ["src/**/*.{ts,tsx}", VIEWS, COMPONENTS, WIDGETS],
    ignores: ["src/http/sessionData.ts"],
    rules: {
      "no-restricted-syntax": ["error", {
        selector: "TSModuleDeclaration[id.value='express-session']",
        message: "Session keys are declared in one place: add the key to SessionData in src/http/sessionData.ts.",
      }],
    },
  },
  {
    name: "house/no-floating-promises",
    files: ["src/**/*.{ts,tsx}"],
    plugins: { "@typescript-eslint": tseslint.plugin },
    languageOptions: TYPE_INFORMATION,
    // A promise nobody awaits or catches loses its error (an unhandled rejection stops the process) and its ordering.
    rules: { "@typescript-eslint/no-floating-promises": "error" },
  },
  {
    name: "type-information",
    files: TYPE_CHECKED,
    languageOptions: TYPE_INFORMATION,
  },
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TYPE_CHECKED })),
  {
    name: "type-checked/house-choices",
    files: TYPE_CHECKED,
    rules: {
      // An async function that implements a Promise-returning interface need not await: its throws still become rejections.
      "@typescript-eslint/require-await": "off",
      // A rest sibling drops a key on purpose (`{ _csrf: _token, ...values }`); `_next` is the error handler's fourth argument.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_" }],
    },
  },
  {
    name: "type-checked/tests",
    files: ["test/**/*.{ts,tsx}"],
    // supertest's res.body and JSON read back in tests are `any`: tests check those values with expect() instead.
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    ...reactHooks.configs.flat["recommended-latest"],
    name: "react-hooks/recommended",
    files: [VIEWS, COMPONENTS, WIDGETS],
  },
);
