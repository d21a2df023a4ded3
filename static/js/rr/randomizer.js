/* The privacy-critical draw: a true answer in, a randomized report out
 * (docs/privacy-model.md#designs, docs/formulas.md#browser-thresholds).
 *
 * Pure: no DOM, no storage, no network, no clock. Everything it needs is passed in:
 *  - the question as the server rendered it (surveys/pages/views.py `_question_data`): `design.name`,
 *    `options` and `thresholds`, the integers T ∈ (0, 2⁵³) computed by
 *    privacy/rr_browser.py (`browser_plan`);
 *  - `fill`, a random source with the contract of `crypto.getRandomValues`: it fills a
 *    Uint32Array in place with independent uniform 32-bit words. The page passes Web Crypto;
 *    tests pass Node's crypto or a fixed queue of words.
 *
 * No probability is computed, rounded or clamped here: a draw U uniform on [0, 2⁵³) is compared
 * with the server's integers unchanged, so P(U < T) = T/2⁵³ exactly — the probabilities whose ε
 * the server reports (never below the design's nominal ε, privacy/rr_browser.py).
 *
 * No design is named here. Each one registers itself (`registerDesign`) from its own module: the
 * one-report designs `randomize` draws from rr/designs/<name>.js (the page loads every one the
 * server's registry lists: the data island's `design_modules`), the designs of one question kind
 * (cheating detection, crosswise, …) from that kind's module (respond/kinds/). A multi question
 * draws each option through `randomize` (respond/kinds/multi.js).
 */

export const RANDOM_BITS = 53;
export const GRID = 2 ** RANDOM_BITS;
const TWO32 = 2 ** 32;

/** One uniform 32-bit word. */
export function uint32(fill) {
  const a = new Uint32Array(1);
  fill(a);
  return a[0];
}

/** U uniform on [0, 2⁵³) from two words: hi·2²¹ + (lo >>> 11) — the 32 bits of the first word
 * on top of the 21 high bits of the second. Every integer below 2⁵³ is exact in a double, so
 * the sum is exact and each value has probability 2⁻⁵³. */
export function uint53(fill) {
  const a = new Uint32Array(2);
  fill(a);
  return a[0] * 2 ** 21 + (a[1] >>> 11);
}

/** Uniform on {0, …, n−1} from 32-bit words, by rejection: words at or above the largest
 * multiple of n below 2³² are drawn again, so no value is favoured (no modulo bias). */
export function randomBelow(n, fill) {
  if (!Number.isInteger(n) || n < 1 || n > TWO32) throw new RangeError(`randomBelow(${n})`);
  const limit = TWO32 - (TWO32 % n);
  let x;
  do {
    x = uint32(fill);
  } while (x >= limit);
  return x % n;
}

// Every design the page knows, by name: what its `registerDesign` call gave, checked.
const DESIGNS = new Map();

/**
 * Register design `name` (each design's module calls this once when loaded: rr/designs/<name>.js
 * for the designs `randomize` draws, respond/kinds/<name>.js for a kind's own designs):
 *  - `thresholds`: the names of its integers (privacy/rr_browser.py, BrowserPlan), each checked
 *    to be a safe integer strictly inside (0, 2⁵³) before anything is drawn;
 *  - `check(t)`: what else makes them a valid device (e.g. truth < yes), as the reason they are
 *    not ("" or nothing when they are);
 *  - `draw(t, truth, fill, q)`: the report `{ reported, branch }` from the checked thresholds `t`
 *    (only the names listed), uniform draws (`uint53`, compared with `t` unchanged) and the true
 *    answer; or `refusal`: why `randomize` must not run it (the kind draws its own way, or not at
 *    all);
 *  - `option`: the true answer and the report are options of the question (k-RR), not booleans.
 * A second registration of a name throws: never two draws for one design.
 */
export function registerDesign(name, { thresholds, check, draw, refusal, option = false } = {}) {
  if (typeof name !== "string" || !name) throw new Error("a design registers under its name");
  if (DESIGNS.has(name)) throw new Error(`design ${name} registered twice`);
  if (!Array.isArray(thresholds) || !thresholds.every((key) => typeof key === "string"))
    throw new Error(`design ${name}: thresholds must be a list of names`);
  if (typeof draw !== "function" && (typeof refusal !== "string" || !refusal))
    throw new Error(`design ${name}: a draw or the reason there is none`);
  DESIGNS.set(name, Object.freeze({ thresholds: Object.freeze([...thresholds]), check, draw, refusal, option }));
}

/** True when a module has registered design `name` (the page's loader checks each one did). */
export const isRegistered = (name) => DESIGNS.has(name);

/** The question's thresholds, checked: integers strictly inside (0, 2⁵³), and whatever the
 * design's `check` adds. Anything else (a design no module registered, a missing or altered value)
 * throws: never guess a probability. Returns `{ name, t }`, `t` holding the design's names only. */
export function checkedThresholds(q) {
  const name = q.design?.name;
  const design = typeof name === "string" ? DESIGNS.get(name) : undefined;
  if (!design) throw new Error(`unknown design ${name}`);
  const t = {};
  for (const key of design.thresholds) {
    const v = q.thresholds?.[key];
    if (!Number.isSafeInteger(v) || v <= 0 || v >= GRID) throw new Error(`bad threshold ${name}.${key}: ${v}`);
    t[key] = v;
  }
  const problem = design.check?.(t);
  if (problem) throw new Error(`bad thresholds: ${problem}`);
  return { name, t: Object.freeze(t) };
}

/**
 * Randomize one answer: the design's registered `draw` (rr/designs/<name>.js says what each
 * branch means) on the checked thresholds. Returns `{ reported, branch }`. Refused before any
 * draw: a design no module registered, one that `randomize` must not run, bad thresholds, a true
 * answer that is not a boolean (an option of the question, for an option design). A report that
 * is not one of the question's possible reports throws instead of being returned.
 */
export function randomize(q, truth, fill) {
  const { name, t } = checkedThresholds(q);
  const design = DESIGNS.get(name);
  if (!design.draw) throw new Error(design.refusal);
  if (design.option && !q.options.includes(truth)) throw new Error("the true answer is not an option");
  if (!design.option && typeof truth !== "boolean") throw new Error("a yes/no answer must be true or false");
  const out = design.draw(t, truth, fill, q);
  const possible = design.option ? q.options.includes(out?.reported) : typeof out?.reported === "boolean";
  if (!possible) throw new Error(`design ${name} drew no possible report`);
  return out;
}
