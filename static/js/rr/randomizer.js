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
 * The designs of one question kind (cheating detection, crosswise) live in that kind's module
 * (respond/kinds/), which registers them here (`registerDesign`); a multi question draws each option
 * through `randomize` (respond/kinds/multi.js).
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

// The threshold names each design uses (privacy/rr_browser.py, BrowserPlan).
const THRESHOLDS = {
  forced_response: ["truth", "yes"],
  warner: ["as_asked"],
  unrelated_question: ["sensitive", "innocuous_yes"],
  k_rr: ["keep"],
  // Any P(yes | trait) = a, P(yes | not) = b, run as forced response: truth = T(a) − T(b), yes = T(a).
  two_probability: ["truth", "yes"],
};
// Designs whose thresholds are checked here but which `randomize` refuses to run, with the reason.
const REFUSALS = {};

/** A design that belongs to one question kind (respond/kinds/<name>.js registers it when loaded):
 * its threshold names, checked like every other design's, and why `randomize` must not run it
 * (the kind draws its own way, or not at all). */
export function registerDesign(name, thresholds, refusal) {
  THRESHOLDS[name] = thresholds;
  REFUSALS[name] = refusal;
}

/** The question's thresholds, checked: integers strictly inside (0, 2⁵³). Anything else (a
 * design the browser cannot run, a missing or altered value) throws: never guess a probability. */
export function checkedThresholds(q) {
  const name = q.design?.name;
  const names = Object.hasOwn(THRESHOLDS, name) ? THRESHOLDS[name] : undefined;
  if (!names) throw new Error(`unknown design ${name}`);
  const t = q.thresholds;
  for (const key of names) {
    const v = t?.[key];
    if (!Number.isSafeInteger(v) || v <= 0 || v >= GRID) throw new Error(`bad threshold ${name}.${key}: ${v}`);
  }
  if ((name === "forced_response" || name === "two_probability") && !(t.truth < t.yes))
    throw new Error("bad thresholds: truth ≥ yes");
  return { name, t };
}

/**
 * Randomize one answer. Returns `{ reported, branch }`:
 *  - forced response (and the two-probability device, with the same thresholds): one draw U; U < truth → the true answer ("truth"), U < yes → YES ("yes"),
 *    else NO ("no");
 *  - Warner: U < as_asked → the answer to the statement as asked ("truth"), else to its opposite
 *    ("negation");
 *  - unrelated question: U < sensitive → the true answer ("truth"); else a second draw
 *    U′ < innocuous_yes simulates the harmless question's answer ("innocuous");
 *  - k-RR (choice): U < keep → the true option ("keep"); else one of the other k − 1 options,
 *    uniformly by rejection sampling ("other").
 * Words consumed: 2 per draw of U, plus (k-RR "other") at least one word.
 */
export function randomize(q, truth, fill) {
  const { name, t } = checkedThresholds(q);
  if (name === "k_rr") {
    if (!q.options.includes(truth)) throw new Error("the true answer is not an option");
    if (uint53(fill) < t.keep) return { reported: truth, branch: "keep" };
    const others = q.options.filter((o) => o !== truth);
    return { reported: others[randomBelow(others.length, fill)], branch: "other" };
  }
  if (Object.hasOwn(REFUSALS, name)) throw new Error(REFUSALS[name]);
  if (typeof truth !== "boolean") throw new Error("a yes/no answer must be true or false");
  const u = uint53(fill); // one draw against cumulative thresholds: exact proportions
  if (name === "forced_response" || name === "two_probability") {
    if (u < t.truth) return { reported: truth, branch: "truth" };
    return u < t.yes ? { reported: true, branch: "yes" } : { reported: false, branch: "no" };
  }
  if (name === "warner") {
    // The report is the answer to whichever statement chance picked.
    return u < t.as_asked ? { reported: truth, branch: "truth" } : { reported: !truth, branch: "negation" };
  }
  if (u < t.sensitive) return { reported: truth, branch: "truth" };
  // The harmless question's answer is simulated with its known prevalence.
  return { reported: uint53(fill) < t.innocuous_yes, branch: "innocuous" };
}
