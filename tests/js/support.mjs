// Shared helpers for the page-module tests (node --test tests/js/): random sources and storages.
import { webcrypto } from "node:crypto";
import { readdirSync } from "node:fs";

import { kindOf } from "../../static/js/respond/kinds/index.js";
import { isRegistered } from "../../static/js/rr/randomizer.js";

export const GRID = 2 ** 53;

/** The two 32-bit words the randomizer turns into `value` (inverse of hi·2²¹ + (lo >>> 11)). */
export function wordsFor(value) {
  if (!Number.isSafeInteger(value) || value < 0 || value >= GRID) throw new RangeError(String(value));
  return [Math.floor(value / 2 ** 21), (value % 2 ** 21) * 2 ** 11];
}

/** A source that hands out `words` in order and fails the test if asked for more. `left()` tells
 * how many are unused, so a test can check a draw consumed exactly its words. */
export function queueSource(words) {
  const queue = [...words];
  const fill = (array) => {
    if (!(array instanceof Uint32Array)) throw new TypeError("the randomizer draws 32-bit words");
    for (let i = 0; i < array.length; i += 1) {
      if (!queue.length) throw new Error("the randomizer drew more words than expected");
      array[i] = queue.shift();
    }
    return array;
  };
  fill.left = () => queue.length;
  return fill;
}

/** Node's Web Crypto, the same API as the browser's `crypto.getRandomValues`. */
export const cryptoSource = (array) => webcrypto.getRandomValues(array);

/** A source that must never be used (a memoized report is never re-drawn). */
export const noDraws = () => {
  throw new Error("drew randomness for a memoized question");
};

/** An in-memory Storage (getItem/setItem/removeItem), optionally broken in the ways browsers are. */
export class FakeStorage {
  constructor({ dropWrites = false, throwOnWrite = false } = {}) {
    this.map = new Map();
    this.dropWrites = dropWrites;
    this.throwOnWrite = throwOnWrite;
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    if (this.throwOnWrite) throw new Error("QuotaExceededError");
    if (!this.dropWrites) this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}

/** A question as the server renders it (surveys/views.py `_question_data`), reduced to what the
 * randomizer reads. `kind_name` is the registry's name of its kind (surveys/kinds/): a yes/no
 * question with a design of its own kind (cheating detection, crosswise) is that kind. */
const DESIGN_KINDS = new Set(["cheater_detection", "crosswise"]);
export const yesNo = (name, thresholds) => ({
  key: name,
  kind: "yes_no",
  kind_name: DESIGN_KINDS.has(name) ? name : "yes_no",
  design: { name },
  thresholds,
  options: [],
});
export const choice = (options, keep) => ({
  key: "vote",
  kind: "choice",
  kind_name: "choice",
  design: { name: "k_rr" },
  thresholds: { keep },
  options,
});

/** Every kind's page module, name → file address, as the server's data island lists them
 * (`kind_modules`, surveys/pages/respond_page.py): one per kind module of surveys/kinds/ (its
 * `js_module`, respond/kinds/<name>.js; helpers start with "_", as the registry skips them). */
const KINDS_PY = new URL("../../surveys/kinds/", import.meta.url);
export const KIND_MODULES = Object.fromEntries(
  readdirSync(KINDS_PY)
    .filter((f) => f.endsWith(".py") && !["__init__.py", "base.py", "registry.py"].includes(f) && !f.startsWith("_"))
    .map((f) => f.slice(0, -3))
    .map((name) => [name, new URL(`../../static/js/respond/kinds/${name}.js`, import.meta.url).href]),
);

/**
 * Import the kind modules of `modules` (name → address), as the page's module scripts load them:
 * each registers itself (respond/kinds/index.js), and a module found under another name than the
 * one it is listed under throws.
 */
export async function loadKinds(modules) {
  for (const [name, address] of Object.entries(modules)) {
    const module = await import(address);
    if (module.name !== name || kindOf({ kind_name: name }).name !== name)
      throw new Error(`${address} is not the module of kind ${name}`);
  }
}

/** Load every kind's page module, as the respondent page does. */
export const loadAllKinds = () => loadKinds(KIND_MODULES);

/** Every one-report design's page module, name → file address, as the server's data island lists
 * them (`design_modules`, surveys/pages/respond_page.py: the registry's designs with a
 * `page_module`, tests/surveys/pages/test_respondent_kind_modules.py checks the two lists agree):
 * one per module of static/js/rr/designs/. */
const DESIGNS_JS = new URL("../../static/js/rr/designs/", import.meta.url);
export const DESIGN_MODULES = Object.fromEntries(
  readdirSync(DESIGNS_JS)
    .filter((f) => f.endsWith(".js"))
    .map((f) => f.slice(0, -3))
    .map((name) => [name, new URL(name + ".js", DESIGNS_JS).href]),
);

/** Import the design modules of `modules` (name → address), as the page's module scripts load
 * them: each registers its design with rr/randomizer.js; one that does not register the name it
 * is listed under throws. */
export async function loadDesigns(modules) {
  for (const [name, address] of Object.entries(modules)) {
    const module = await import(address);
    if (module.name !== name || !isRegistered(name)) throw new Error(`${address} is not the module of design ${name}`);
  }
}

// The page loads every design's module before any question is drawn: so do the tests that import
// this file (a draw of a design no module registered throws, as it would on the page).
await loadDesigns(DESIGN_MODULES);
