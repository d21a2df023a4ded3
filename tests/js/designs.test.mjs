// static/js/rr/designs/: one module per one-report design, each registering its thresholds, their
// check and its draw with rr/randomizer.js (`registerDesign`), which names no design. The page loads
// the list the server's registry gives (`design_modules`); support.mjs loads them all, as it does.
// Each yes/no design's draw is checked to give exactly the probabilities the server's ε is computed
// from (dpcore/local/designs/<name>.py, `BrowserHooks.realise`), by enumerating its draws.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { GRID, checkedThresholds, isRegistered, randomize, registerDesign } from "../../static/js/rr/randomizer.js";
import { DESIGN_MODULES, loadDesigns, queueSource, wordsFor, yesNo } from "./support.mjs";

const RANDOMIZER = new URL("../../static/js/rr/randomizer.js", import.meta.url);
const G = BigInt(GRID);

describe("the design registry (rr/randomizer.js registerDesign)", () => {
  it("has a module for each one-report design, registered under the module's name", () => {
    assert.ok(Object.keys(DESIGN_MODULES).length >= 5, Object.keys(DESIGN_MODULES).join());
    for (const name of Object.keys(DESIGN_MODULES)) assert.ok(isRegistered(name), name);
  });

  it("randomizer.js names no design and imports none", () => {
    const source = readFileSync(fileURLToPath(RANDOMIZER), "utf8");
    assert.doesNotMatch(source, /^\s*import\b/m);
    for (const name of Object.keys(DESIGN_MODULES)) assert.doesNotMatch(source, new RegExp(`["'/]${name}["'.]`), name);
  });

  it("refuses a second registration of a name, a module under another name, and incomplete designs", async () => {
    const some = Object.keys(DESIGN_MODULES)[0];
    assert.throws(() => registerDesign(some, { thresholds: [], draw: () => ({}) }), /registered twice/);
    // A module listed under a name it does not register (the page's list and the files disagree).
    await assert.rejects(loadDesigns({ k_rr: DESIGN_MODULES.warner }), /is not the module of design k_rr/);
    assert.throws(() => registerDesign("", { thresholds: [], refusal: "none" }), /under its name/);
    assert.throws(() => registerDesign("no_draw", { thresholds: [] }), /a draw or the reason/);
    assert.throws(() => registerDesign("bad_names", { thresholds: "truth", refusal: "x" }), /list of names/);
    assert.throws(() => registerDesign("bad_name_list", { thresholds: [1], refusal: "x" }), /list of names/);
    for (const name of ["no_draw", "bad_names", "bad_name_list"]) assert.equal(isRegistered(name), false);
  });

  it("an unknown design throws before anything is drawn, whatever its thresholds", () => {
    for (const name of ["mystery", undefined, null, 7, "toString", "__proto__", "hasOwnProperty"]) {
      const q = { ...yesNo("x", { truth: 1, yes: 2 }), design: { name } };
      assert.throws(() => checkedThresholds(q), /unknown design/, String(name));
      assert.throws(() => randomize(q, true, queueSource([])), /unknown design/, String(name));
    }
  });

  it("a design's draw sees only its checked thresholds, and a report the question cannot have throws", () => {
    let seen = null;
    registerDesign("test_peek", {
      thresholds: ["a"],
      draw: (t) => {
        seen = t;
        return { reported: "maybe", branch: "x" };
      },
    });
    const q = { ...yesNo("test_peek", { a: 5, b: 7 }) };
    assert.throws(() => randomize(q, true, queueSource([])), /drew no possible report/);
    assert.deepEqual(seen, { a: 5 });
    assert.ok(Object.isFrozen(seen));
    // Its check runs before the draw, and the thresholds' own rules before its check.
    registerDesign("test_checked", { thresholds: ["a", "b"], check: (t) => (t.a < t.b ? "" : "a ≥ b"), draw: () => 0 });
    assert.throws(() => randomize(yesNo("test_checked", { a: 7, b: 5 }), true, queueSource([])), /a ≥ b/);
    assert.throws(() => randomize(yesNo("test_checked", { a: 0, b: 5 }), true, queueSource([])), /bad threshold/);
  });
});

/**
 * The exact P(report YES | truth) of a yes/no design's draw with thresholds `t`, as a fraction
 * [numerator, denominator] of BigInts. Every draw U of the design is one uint53 (two words): the
 * grid [0, 2⁵³) is cut at every threshold value, and each piece is tried at both its ends — the
 * draw must report the same there (a design comparing otherwise than `U < T` fails here) — and
 * weighted by its length. A second draw (the unrelated question's) is enumerated the same way
 * under each piece of the first.
 */
function exactYes(name, t, truth) {
  const cuts = [...new Set([0, ...Object.values(t), GRID])].sort((a, b) => a - b);
  const pieces = cuts.slice(0, -1).map((lo, i) => [lo, cuts[i + 1]]);
  const DEPTH = 4;
  let numerator = 0n;
  /** The report with U of each draw at `end(piece)` of the pieces in `path`, or "deeper". */
  const run = (path, end) => {
    let i = 0;
    const fill = (array) => {
      if (array.length !== 2) throw new Error("a yes/no design draws U from two words");
      if (i >= path.length) throw Object.assign(new Error("deeper"), { deeper: true });
      [array[0], array[1]] = wordsFor(end(pieces[path[i]]));
      i += 1;
      return array;
    };
    try {
      const { reported } = randomize(yesNo(name, t), truth, fill);
      return i === path.length ? reported : "shorter";
    } catch (error) {
      if (error.deeper) return "deeper";
      throw error;
    }
  };
  // Depth first over the pieces of each successive draw: `path` holds one piece per draw.
  const explore = (path) => {
    const low = run(path, (p) => p[0]);
    if (low === "deeper") {
      assert.ok(path.length < DEPTH, `${name} draws more than ${DEPTH} times`);
      pieces.forEach((_, j) => explore([...path, j]));
      return;
    }
    assert.equal(typeof low, "boolean");
    assert.equal(
      run(path, (p) => p[1] - 1),
      low,
      `${name}: the report changes inside the pieces ${path}`,
    );
    if (low) {
      const weight = path.reduce((w, j) => w * BigInt(pieces[j][1] - pieces[j][0]), 1n);
      numerator += weight * G ** BigInt(DEPTH - path.length); // over the common denominator G⁴
    }
  };
  explore([]);
  return [numerator, G ** BigInt(DEPTH)];
}

const same = ([a, b], [c, d]) => a * d === c * b;
const frac = (n, d = 1n) => [BigInt(n), BigInt(d)];
const mul = ([a, b], [c, d]) => [a * c, b * d];
const add = ([a, b], [c, d]) => [a * d + c * b, b * d];
const sub = (x, [c, d]) => add(x, [-c, d]);
const onGrid = (n) => frac(n, G);

// Thresholds as the server renders them (tests/js/randomizer.test.mjs), and each design's
// realised (P(YES | trait), P(YES | no trait)) from them, as dpcore's `realise` states it.
const EXPECTED = {
  forced_response: [
    { truth: 5404319552844595, yes: 8106479329266892 },
    (t) => [onGrid(t.yes), onGrid(t.yes - t.truth)],
  ],
  two_probability: [
    { truth: 4503599627370495, yes: 6004799503160661 },
    (t) => [onGrid(t.yes), onGrid(t.yes - t.truth)],
  ],
  warner: [{ as_asked: 6305039478318694 }, (t) => [onGrid(t.as_asked), sub(frac(1), onGrid(t.as_asked))]],
  unrelated_question: [
    { sensitive: 5404319552844595, innocuous_yes: 2702159776422298 },
    (t) => {
      const p = onGrid(t.sensitive);
      const rest = mul(sub(frac(1), p), onGrid(t.innocuous_yes));
      return [add(p, rest), rest];
    },
  ],
};

describe("each yes/no design's draw gives exactly the server's probabilities", () => {
  it("covers every one-report yes/no design module (k-RR's draw is tested in randomizer.test.mjs)", () => {
    assert.deepEqual(
      Object.keys(EXPECTED).sort(),
      Object.keys(DESIGN_MODULES)
        .filter((n) => n !== "k_rr")
        .sort(),
    );
  });
  for (const [name, [t, realise]] of Object.entries(EXPECTED)) {
    it(`${name}: P(YES | trait) and P(YES | no trait) are the thresholds' fractions of 2⁵³`, () => {
      const [ifTrait, ifNot] = realise(t);
      assert.ok(same(exactYes(name, t, true), ifTrait), "P(YES | trait)");
      assert.ok(same(exactYes(name, t, false), ifNot), "P(YES | no trait)");
      // The enumeration can fail: one grid step more for YES is a different probability.
      assert.ok(!same(exactYes(name, t, true), add(ifTrait, frac(1, G))));
    });
  }
});
