// static/js/releases/results.js: the results table reads each entry's shape in one place
// (entryShape, the server's entry_from_json rule) and builds its rows from it, naming no kind.
// Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { entryRows, entryShape, selectionBound } from "../../static/js/releases/results.js";

const estimate = { estimate: 0.4, estimate_unclipped: 0.4, std_error: 0.05, ci_low: 0.3, ci_high: 0.5 };

describe("a release entry's shape and rows", () => {
  it("reads a number's mean from its grid", () => {
    const q = {
      key: "age",
      kind: "number",
      grid_step: 0.5,
      noisy_sum: 120.5,
      noisy_count: 10,
      mean: 12.05,
      ...estimate,
    };
    assert.equal(entryShape(q), "mean");
    const rows = entryRows(q);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].option, "mean (noisy sum 120.50)");
    assert.equal(rows[0].proportion, false);
  });
  it("reads cheating detection's three parameters, the YES reports on π's row", () => {
    const q = {
      key: "c",
      kind: "yes_no",
      noisy_counts: { g1_yes: 3, g1_no: 4, g2_yes: 5, g2_no: 6 },
      honest_yes: estimate,
      cheaters: estimate,
      honest_no: estimate,
      ...estimate,
    };
    assert.equal(entryShape(q), "parameters");
    assert.deepEqual(
      entryRows(q).map((r) => [r.option, r.noisy_count]),
      [
        ["honest yes (π)", 8],
        ["cheaters (γ)", null],
        ["honest no (β)", null],
      ],
    );
  });
  it("reads a histogram's options, and a proportion's yes", () => {
    const options = [
      { option: "a", noisy_count: 4, ...estimate },
      { option: "b", noisy_count: 6, ...estimate },
    ];
    assert.equal(entryShape({ options }), "options");
    assert.deepEqual(
      entryRows({ options }).map((r) => r.option),
      ["a", "b"],
    );
    const share = { key: "y", kind: "yes_no", noisy_counts: { yes: 7, no: 3 }, ...estimate };
    assert.equal(entryShape(share), "share");
    assert.deepEqual(
      entryRows(share).map((r) => [r.option, r.noisy_count]),
      [["yes", 7]],
    );
  });

  it("reads a selection (issue 30) by its statistic: a quantile's value, a mode's option", () => {
    const bound = { measure: "rank_error", bound: 9.2, probability: 0.95, candidates: 1621 };
    const median = { key: "age", kind: "number", statistic: "quantile", q: 0.9, value: 41.5, option: null };
    assert.equal(entryShape({ ...median, expected_error: bound }), "selection");
    const [row] = entryRows(median);
    assert.equal(row.option, "quantile 0.9");
    assert.equal(row.estimate, 41.5);
    assert.match(selectionBound({ ...median, expected_error: bound }), /within 9\.2 answers .* 1621 points/);
    const mode = { key: "region", kind: "category", statistic: "mode", q: null, value: null, option: "north" };
    assert.deepEqual(
      entryRows(mode).map((r) => [r.option, r.estimate, r.note]),
      [["mode", null, "north"]],
    );
  });
});
