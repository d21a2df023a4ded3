// static/js/rr/randomizer.js for the designs of issue 15: the two-probability device runs on the
// server's forced-response-shaped thresholds, the crosswise model has no randomizer at all
// (respond/kinds/crosswise.js); cheating detection draws its group first (respond/kinds/cheater_detection.js).
// Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { randomizeCheater } from "../../static/js/respond/kinds/cheater_detection.js";
import "../../static/js/respond/kinds/crosswise.js"; // registers its design: no randomizer
import { GRID, checkedThresholds, randomize } from "../../static/js/rr/randomizer.js";
import { cryptoSource, queueSource, wordsFor, yesNo } from "./support.mjs";

// dpcore.local.browser.browser_plan(two_probability(2/3, 1/6)).thresholds, pinned by
// tests/dpcore/local/test_new_designs.py::test_js_threshold_constants_match_the_server:
// yes ≈ ⅔·2⁵³ and yes − truth ≈ ⅙·2⁵³, each within two grid steps (the server nudges by at most
// 2⁻⁵² to keep the realised ε at or below the nominal one).
const KUK = { truth: 4503599627370495, yes: 6004799503160661 };
// two_probability(0.75, 0.25): exact on the grid.
const KUK_34 = { truth: 2 ** 52, yes: 3 * 2 ** 51 };

function drawWith(q, truth, words) {
  const fill = queueSource(words);
  const out = randomize(q, truth, fill);
  assert.equal(fill.left(), 0, "a draw must consume exactly its words");
  return out;
}

describe("two probabilities: P(yes | trait) = yes/2⁵³, P(yes | no trait) = (yes − truth)/2⁵³", () => {
  it("flips at exactly the server's thresholds", () => {
    for (const t of [KUK, KUK_34]) {
      const q = yesNo("two_probability", t);
      for (const truth of [true, false]) {
        assert.deepEqual(drawWith(q, truth, wordsFor(t.truth - 1)), { reported: truth, branch: "truth" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.truth)), { reported: true, branch: "yes" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.yes - 1)), { reported: true, branch: "yes" });
        assert.deepEqual(drawWith(q, truth, wordsFor(t.yes)), { reported: false, branch: "no" });
      }
    }
  });

  it("so a respondent with the trait says YES below `yes`, one without below `yes − truth`", () => {
    const q = yesNo("two_probability", KUK);
    const noTraitYes = KUK.yes - KUK.truth; // ≈ ⅙·2⁵³
    assert.ok(Math.abs(noTraitYes - GRID / 6) <= 2 && Math.abs(KUK.yes - (2 * GRID) / 3) <= 2);
    // A no-trait respondent: YES exactly for U in [truth, yes), a band of width T(b).
    assert.equal(drawWith(q, false, wordsFor(0)).reported, false);
    assert.equal(drawWith(q, false, wordsFor(KUK.truth)).reported, true);
  });

  it("report frequencies match a = ⅔ and b = ⅙ (200 000 draws each, |z| < 5)", () => {
    const q = yesNo("two_probability", KUK);
    const n = 200000;
    for (const [truth, p] of [
      [true, KUK.yes / GRID],
      [false, (KUK.yes - KUK.truth) / GRID],
    ]) {
      let yes = 0;
      for (let i = 0; i < n; i += 1) if (randomize(q, truth, cryptoSource).reported) yes += 1;
      const z = (yes - n * p) / Math.sqrt(n * p * (1 - p));
      assert.ok(Math.abs(z) < 5, `truth ${truth}: z = ${z}`);
    }
  });

  it("refuses disordered thresholds", () => {
    assert.throws(() => checkedThresholds(yesNo("two_probability", { truth: 10, yes: 5 })));
    assert.throws(() => checkedThresholds(yesNo("two_probability", { truth: 10 })));
  });
});

describe("crosswise: no randomizer", () => {
  it("has no thresholds to check and refuses to draw", () => {
    const q = yesNo("crosswise", {});
    assert.deepEqual(checkedThresholds(q), { name: "crosswise", t: {} });
    assert.throws(() => randomize(q, true, cryptoSource), /no randomizer/);
  });
});

// dpcore.local.cheater.browser_thresholds(cheater_detection([{¼, ¼}, {⅙, ⅙}])), pinned by
// tests/dpcore/local/test_cheater.py.
const CDM = {
  group_1_truth: 2 ** 52,
  group_1_yes: 3 * 2 ** 51,
  group_2_truth: 6004799503160660,
  group_2_yes: 7505999378950827,
};

describe("cheater detection: the group, then that group's forced response", () => {
  it("draws the group from one word (exactly ½) and flips at the group's thresholds", () => {
    const q = yesNo("cheater_detection", CDM);
    for (const group of [1, 2]) {
      const word = group === 1 ? 0 : 1; // randomBelow(2): word % 2 (2³² is a multiple of 2)
      const t = { truth: CDM[`group_${group}_truth`], yes: CDM[`group_${group}_yes`] };
      for (const truth of [true, false]) {
        const at = (u) => {
          const fill = queueSource([word, ...wordsFor(u)]);
          const out = randomizeCheater(q, truth, fill);
          assert.equal(fill.left(), 0);
          return out;
        };
        assert.deepEqual(at(t.truth - 1), { group, reported: truth, branch: "truth" });
        assert.deepEqual(at(t.truth), { group, reported: true, branch: "yes" });
        assert.deepEqual(at(t.yes - 1), { group, reported: true, branch: "yes" });
        assert.deepEqual(at(t.yes), { group, reported: false, branch: "no" });
      }
    }
  });

  it("assigns the groups evenly (200 000 draws, |z| < 5) whatever the true answer", () => {
    const q = yesNo("cheater_detection", CDM);
    const n = 200000;
    let first = 0;
    for (let i = 0; i < n; i += 1) if (randomizeCheater(q, i % 2 === 0, cryptoSource).group === 1) first += 1;
    const z = (first - n / 2) / Math.sqrt(n / 4);
    assert.ok(Math.abs(z) < 5, `z = ${z}`);
  });

  it("refuses the plain randomize() and disordered thresholds", () => {
    assert.throws(() => randomize(yesNo("cheater_detection", CDM), true, cryptoSource), /randomizeCheater/);
    const bad = { ...CDM, group_2_yes: CDM.group_2_truth };
    assert.throws(() => randomizeCheater(yesNo("cheater_detection", bad), true, cryptoSource));
  });
});
