// ESLint for the page modules (static/js, served as plain ES modules: no bundler) and their unit
// tests (tests/js, run by `node --test`). `make lint` runs it with Prettier's check; the rules are
// ESLint's recommended set, which catches mistakes, and Prettier owns the layout.
import js from "@eslint/js";

const readonly = (names) => Object.fromEntries(names.map((name) => [name, "readonly"]));

// What the pages use of the browser (listed, not the `globals` package: one dependency fewer).
const BROWSER = readonly([
  "CSS",
  "CustomEvent",
  "Event",
  "HTMLElement",
  "Intl",
  "MutationObserver",
  "Node",
  "Option",
  "TextEncoder",
  "indexedDB",
  "URL",
  "URLSearchParams",
  "clearInterval",
  "clearTimeout",
  "console",
  "crypto",
  "document",
  "fetch",
  "history",
  "location",
  "navigator",
  "setInterval",
  "setTimeout",
  "window",
]);

export default [
  { ignores: ["node_modules/**", "staticfiles/**", "htmlcov/**", ".venv/**", "*.min.js"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: BROWSER },
  },
  {
    // The respondent pages' service worker: a classic script in a worker's global scope.
    files: ["static/js/sw.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "script",
      globals: readonly(["self", "caches", "fetch", "Request", "Response", "URL"]),
    },
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: { ...BROWSER, Response: "readonly" } },
  },
];
