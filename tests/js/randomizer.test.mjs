// static/js/rr/randomizer.js: the draw is bit-exact, the thresholds are used unchanged, and the
// k-RR draw is uniform (chi-square, α = 1e-6). Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { GRID, checkedThresholds, randomBelow, randomize, uint32, uint53 } from "../../static/js/rr/randomizer.js";
import { choice, cryptoSource, queueSource, wordsFor, yesNo } from "./support.mjs";

// Thresholds exactly as the server renders them: privacy.rr_browser.browser_plan(design).thresholds
// for the designs named (so the boundaries tested are the ones respondents' pages get).
const COIN = { truth: 2 ** 52, yes: 3 * 2 ** 51 }; // forced_response(0.5, 0.25, 0.25)
const FORCED = { truth: 5404319552844595, yes: 8106479329266892 }; // forced_response(0.6, 0.3, 0.1)
const WARNER = { as_asked: 6305039478318694 }; // warner(0.7)
const UNRELATED = { sensitive: 5404319552844595, innocuous_yes: 2702159776422298 }; // unrelated_question(0.6, 0.3)
const KRR3 = 7088540092449512; // k_rr(3, ε = 2): e²/(e² + 2) on the 2⁵³ grid
const KRR5 = 3644399964847581; // k_rr(5, ε = 1)

/** randomize() with exactly `words`; asserts every word was used and no more were asked for. */
function drawWith(q, truth, words) {
  const fill = queueSource(words);
  const out = randomize(q, truth, fill);
  assert.equal(fill.left(), 0, "a draw must consume exactly its words");
  return out;
}

describe("the 53-bit draw from crypto words", () => {
  it("is hi·2²¹ + (lo >>> 11), first word high, bit for bit", () => {
    const cases = [
      [[0, 0], 0],
      [[0, 2047], 0], // the low 11 bits of the second word are dropped
      [[0, 2048], 1],
      [[0, 0xfffff800], 2 ** 21 - 1],
      [[1, 0], 2 ** 21],
      [[0x80000000, 0], 2 ** 52], // the top bit of the first word is the draw's top bit
      [[0xffffffff, 0xffffffff], 2 ** 53 - 1],
      [[0x12345678, 0x9abcdef0], 0x12345678 * 2 ** 21 + (0x9abcdef0 >>> 11)],
    ];
    for (const [words, value] of cases) {
      const fill = queueSource(words);
      assert.equal(uint53(fill), value, `words ${words}`);
      assert.equal(fill.left(), 0);
    }
  });

  it("wordsFor() is its inverse on the grid's edges and at random points", () => {
    for (const v of [0, 1, 2 ** 21 - 1, 2 ** 21, 2 ** 52, GRID - 1, KRR3, FORCED.yes]) {
      assert.equal(uint53(queueSource(wordsFor(v))), v);
    }
    for (let i = 0; i < 1000; i += 1) {
      const v = uint53(cryptoSource);
      assert.ok(Number.isSafeInteger(v) && v >= 0 && v < GRID);
      assert.equal(uint53(queueSource(wordsFor(v))), v);
    }
  });

  it("uint32 takes one word as is", () => {
    assert.equal(uint32(queueSource([0xdeadbeef])), 0xdeadbeef);
  });
});

describe("randomBelow: uniform integers by rejection", () => {
  it("rejects the words at or above the largest multiple of n", () => {
    // 2³² mod 3 = 1: the limit is 2³² − 1, so the word 2³² − 1 is drawn again.
    const fill = queueSource([0xffffffff, 0xffffffff, 5]);
    assert.equal(randomBelow(3, fill), 2);
    assert.equal(fill.left(), 0);
    assert.equal(randomBelow(3, queueSource([0xfffffffe])), 0xfffffffe % 3); // last accepted word
    // A power of two never rejects.
    assert.equal(randomBelow(4, queueSource([0xffffffff])), 3);
  });

  it("refuses n outside 1…2³²", () => {
    for (const n of [0, -1, 1.5, 2 ** 32 + 1, NaN]) assert.throws(() => randomBelow(n, cryptoSource), RangeError);
  });
});

describe("thresholds are used unchanged: the report flips at exactly T", () => {
  it("forced response (coin and general): truth below `truth`, YES below `yes`, else NO", () => {
    for (const t of [COIN, FORCED]) {
      const q = yesNo("forced_response", t);
      for (const truth of [true, false]) {
        assert.deepEqual(drawWith(q, truth, wordsFor(0)), { reported: truth, branch: "truth" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.truth - 1)), { reported: truth, branch: "truth" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.truth)), { reported: true, branch: "yes" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.yes - 1)), { reported: true, branch: "yes" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.yes)), { reported: false, branch: "no" });
        assert.deepEqual(drawWith(q, truth, wordsFor(GRID - 1)), { reported: false, branch: "no" });
      }
    }
  });

  it("the coin design is two fair coins: the top bit, then the next", () => {
    const q = yesNo("forced_response", COIN);
    assert.equal(drawWith(q, false, [0x7fffffff, 0xffffffff]).branch, "truth"); // first coin tails
    assert.equal(drawWith(q, false, [0x80000000, 0]).branch, "yes"); // heads, heads
    assert.equal(drawWith(q, false, [0xbfffffff, 0xffffffff]).branch, "yes");
    assert.equal(drawWith(q, false, [0xc0000000, 0]).branch, "no"); // heads, tails
  });

  it("Warner: the answer to the statement as asked below `as_asked`, else its opposite", () => {
    const q = yesNo("warner", WARNER);
    for (const truth of [true, false]) {
      assert.deepEqual(drawWith(q, truth, wordsFor(WARNER.as_asked - 1)), { reported: truth, branch: "truth" });
      assert.deepEqual(drawWith(q, truth, wordsFor(WARNER.as_asked)), { reported: !truth, branch: "negation" });
    }
  });

  it("unrelated question: the truth below `sensitive`, else a second draw against `innocuous_yes`", () => {
    const q = yesNo("unrelated_question", UNRELATED);
    for (const truth of [true, false]) {
      assert.deepEqual(drawWith(q, truth, wordsFor(UNRELATED.sensitive - 1)), { reported: truth, branch: "truth" });
      const above = wordsFor(UNRELATED.sensitive);
      assert.deepEqual(drawWith(q, truth, [...above, ...wordsFor(UNRELATED.innocuous_yes - 1)]), {
        reported: true,
        branch: "innocuous",
      });
      assert.deepEqual(drawWith(q, truth, [...above, ...wordsFor(UNRELATED.innocuous_yes)]), {
        reported: false,
        branch: "innocuous",
      });
    }
  });

  it("k-RR: the true option below `keep`; else another one by one uniform word", () => {
    const q = choice(["a", "b", "c"], KRR3);
    assert.deepEqual(drawWith(q, "b", wordsFor(KRR3 - 1)), { reported: "b", branch: "keep" });
    // Above: the others are ["a", "c"]; word mod 2 picks one (2 divides 2³²: never a rejection).
    assert.deepEqual(drawWith(q, "b", [...wordsFor(KRR3), 0]), { reported: "a", branch: "other" });
    assert.deepEqual(drawWith(q, "b", [...wordsFor(KRR3), 1]), { reported: "c", branch: "other" });
    assert.deepEqual(drawWith(q, "b", [...wordsFor(KRR3), 2 ** 32 - 1]), { reported: "c", branch: "other" });
    // Four others: 2³² mod 4 = 0, word 7 → 7 mod 4 = 3 → the fourth other option.
    const q5 = choice(["v", "w", "x", "y", "z"], KRR5);
    assert.deepEqual(drawWith(q5, "x", [...wordsFor(KRR5), 7]), { reported: "z", branch: "other" });
    assert.deepEqual(drawWith(q5, "x", wordsFor(KRR5 - 1)), { reported: "x", branch: "keep" });
  });

  it("k-RR at the largest thresholds the grid allows still works (the old page gave NaN above ε ≈ 709.8)", () => {
    const q = choice(["a", "b"], GRID - 1);
    assert.deepEqual(drawWith(q, "a", wordsFor(GRID - 2)), { reported: "a", branch: "keep" });
    assert.deepEqual(drawWith(q, "a", [...wordsFor(GRID - 1), 0]), { reported: "b", branch: "other" });
  });
});

describe("fails closed on anything but the server's integers", () => {
  it("refuses missing, out-of-range, non-integer and disordered thresholds, and unknown designs", () => {
    const bad = [
      yesNo("forced_response", null),
      yesNo("forced_response", { truth: 2 ** 52 }),
      yesNo("forced_response", { truth: 0, yes: 1 }),
      yesNo("forced_response", { truth: 2, yes: GRID }),
      yesNo("forced_response", { truth: 0.5, yes: 0.75 }), // probabilities, not grid integers
      yesNo("forced_response", { truth: 10, yes: 10 }),
      yesNo("warner", { as_asked: "6305039478318694" }),
      yesNo("unrelated_question", { sensitive: 5, innocuous_yes: -1 }),
      yesNo("mystery", { p: 1 }),
      choice(["a", "b"], NaN),
      choice(["a", "b"], 2 ** 53),
    ];
    for (const q of bad) {
      assert.throws(() => checkedThresholds(q));
      assert.throws(
        () => randomize(q, q.kind === "choice" ? "a" : true, queueSource([])),
        undefined,
        JSON.stringify(q),
      );
    }
  });

  it("refuses a true answer of the wrong type without drawing", () => {
    assert.throws(() => randomize(yesNo("warner", WARNER), "yes", queueSource([])));
    assert.throws(() => randomize(choice(["a", "b"], KRR3), "c", queueSource([])));
  });
});

// ---------------------------------------------------------------------------------------------
// Uniformity by Pearson's chi-square test, with Node's crypto as the source.
//
// Critical values at α = 1e-6 (a false alarm once in a million runs). For an even number of
// degrees of freedom ν = 2m the chi-square survival function has a closed form,
//     Q(x) = e^(−x/2) · Σ_{j=0}^{m−1} (x/2)^j / j!,
// so the critical value solves Q(x) = 10⁻⁶:
//   ν = 2: e^(−x/2) = 10⁻⁶                 ⇒ x = 2·ln 10⁶ = 12·ln 10 = 27.6310211…
//   ν = 4: e^(−y)(1 + y) = 10⁻⁶, y = x/2    ⇒ y = 16.6884208…, x = 33.3768416…
// (scipy.stats.chi2.isf(1e-6, 2) = 27.631021115928547 and chi2.isf(1e-6, 4) = 33.37684158171984.)
// chiSquareCritical() below solves the same equation by bisection and the test checks it against
// these numbers, so the constants are derived here, not copied from a table.
// N is fixed and large: expected counts are ≥ 10⁴ per cell, far above the ≥ 5 the chi-square
// approximation needs, and a bias of 1 % in one cell (χ² contribution ≈ N·p·0.01²) is detected.
// ---------------------------------------------------------------------------------------------
const ALPHA = 1e-6;
const N = 200_000;

function survival(x, dof) {
  assert.equal(dof % 2, 0, "closed form for even degrees of freedom only");
  const y = x / 2;
  let term = 1;
  let sum = 1;
  for (let j = 1; j < dof / 2; j += 1) {
    term *= y / j;
    sum += term;
  }
  return Math.exp(-y) * sum;
}

function chiSquareCritical(alpha, dof) {
  let lo = 0;
  let hi = 1000;
  for (let i = 0; i < 200; i += 1) {
    const mid = (lo + hi) / 2;
    if (survival(mid, dof) > alpha) lo = mid;
    else hi = mid;
  }
  return lo;
}

function chiSquare(counts, probabilities, n) {
  return counts.reduce((acc, c, i) => acc + (c - n * probabilities[i]) ** 2 / (n * probabilities[i]), 0);
}

describe("uniformity (chi-square, α = 1e-6, Node's crypto)", () => {
  it("derives the critical values", () => {
    assert.ok(Math.abs(chiSquareCritical(ALPHA, 2) - 12 * Math.log(10)) < 1e-9);
    assert.ok(Math.abs(chiSquareCritical(ALPHA, 2) - 27.631021115928547) < 1e-9);
    assert.ok(Math.abs(chiSquareCritical(ALPHA, 4) - 33.37684158171984) < 1e-9);
  });

  it("k-RR over 5 options: reports follow keep = T/2⁵³ and (1 − keep)/4 for each other (ν = 4)", () => {
    const options = ["v", "w", "x", "y", "z"];
    const q = choice(options, KRR5);
    const keep = KRR5 / GRID;
    const expected = options.map((o) => (o === "x" ? keep : (1 - keep) / 4));
    const counts = options.map(() => 0);
    for (let i = 0; i < N; i += 1) counts[options.indexOf(randomize(q, "x", cryptoSource).reported)] += 1;
    const stat = chiSquare(counts, expected, N);
    assert.ok(stat < chiSquareCritical(ALPHA, 4), `χ² = ${stat} (counts ${counts})`);
    // The test has power: the same counts are rejected against keep + 1 % (ε a little higher).
    const shifted = options.map((o) => (o === "x" ? keep + 0.01 : (1 - keep - 0.01) / 4));
    assert.ok(chiSquare(counts, shifted, N) > chiSquareCritical(ALPHA, 4));
  });

  it("the 'other' option of k-RR is uniform over the 5 others of 6 (ν = 4)", () => {
    const options = ["a", "b", "c", "d", "e", "f"];
    const q = choice(options, 1); // keep = 2⁻⁵³: essentially always "other"
    const others = options.slice(1);
    const counts = others.map(() => 0);
    for (let i = 0; i < N; i += 1) {
      const out = randomize(q, "a", cryptoSource);
      if (out.branch === "other") counts[others.indexOf(out.reported)] += 1;
    }
    const n = counts.reduce((a, b) => a + b, 0);
    const stat = chiSquare(
      counts,
      others.map(() => 1 / 5),
      n,
    );
    assert.ok(stat < chiSquareCritical(ALPHA, 4), `χ² = ${stat} (counts ${counts})`);
  });

  it("randomBelow(3), where 2³² is not a multiple of 3, is uniform (ν = 2)", () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < N; i += 1) counts[randomBelow(3, cryptoSource)] += 1;
    const stat = chiSquare(counts, [1 / 3, 1 / 3, 1 / 3], N);
    assert.ok(stat < chiSquareCritical(ALPHA, 2), `χ² = ${stat} (counts ${counts})`);
  });

  it("forced response reports match the thresholds' probabilities (truth NO: P(YES) = (yes − truth)/2⁵³)", () => {
    const q = yesNo("forced_response", FORCED);
    const pYes = (FORCED.yes - FORCED.truth) / GRID;
    let yes = 0;
    for (let i = 0; i < N; i += 1) if (randomize(q, false, cryptoSource).reported) yes += 1;
    // Two cells (YES, NO): ν = 1, critical value z² with z = Φ⁻¹(1 − α/2) = 4.8916…: 23.928.
    const stat = chiSquare([yes, N - yes], [pYes, 1 - pYes], N);
    assert.ok(stat < 23.928, `χ² = ${stat}`);
  });
});
