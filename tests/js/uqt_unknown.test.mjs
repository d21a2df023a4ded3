// static/js/respond/kinds/unrelated_question_unknown.js: the group drawn first (½ each, by
// rejection), then one draw U against that group's threshold — below it the sensitive answer is
// reported, at or above it the respondent's own answer to the other question.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  draw,
  possibleReports,
  randomizeUnknownUQT,
  validReport,
} from "../../static/js/respond/kinds/unrelated_question_unknown.js";
import { randomize } from "../../static/js/rr/randomizer.js";
import { queueSource, wordsFor } from "./support.mjs";

// dpcore.local.designs.unrelated_question_unknown.browser_thresholds(
//   unrelated_question_unknown([0.5, 0.1], "…", (0.4, 0.6)))[0]: 2⁵² and round(0.1·2⁵³).
const T = { group_1_sensitive: 2 ** 52, group_2_sensitive: 900719925474099 };
const question = (thresholds = T) => ({
  key: "uqtu",
  kind: "yes_no",
  kind_name: "unrelated_question_unknown",
  design: { name: "unrelated_question_unknown" },
  thresholds,
  options: [],
});
const BOTH = { sensitive: true, innocuous: false };

describe("unrelated question, unknown innocuous prevalence", () => {
  it("reports the sensitive answer below the drawn group's threshold, the other answer at it", () => {
    // Group word 0 → group 1; U just below 2⁵² → the sensitive question.
    let fill = queueSource([0, ...wordsFor(T.group_1_sensitive - 1)]);
    assert.deepEqual(randomizeUnknownUQT(question(), BOTH, fill), { group: 1, reported: true, branch: "truth" });
    assert.equal(fill.left(), 0);
    // Group word 1 → group 2; U at its threshold → the other question's answer.
    fill = queueSource([1, ...wordsFor(T.group_2_sensitive)]);
    assert.deepEqual(randomizeUnknownUQT(question(), BOTH, fill), { group: 2, reported: false, branch: "innocuous" });
    // Group 1's threshold is larger: the same U in group 1 asks the sensitive question.
    fill = queueSource([0, ...wordsFor(T.group_2_sensitive)]);
    assert.equal(randomizeUnknownUQT(question(), BOTH, fill).branch, "truth");
  });

  it("draws the group from one word, exactly ½ each (2³² is even: no word is rejected; odd → group 2)", () => {
    const fill = queueSource([2 ** 32 - 1, ...wordsFor(0)]);
    assert.equal(randomizeUnknownUQT(question(), BOTH, fill).group, 2);
  });

  it("refuses a missing answer, bad thresholds and the generic randomizer", () => {
    const fill = queueSource([0, 0, 0]);
    assert.throws(() => randomizeUnknownUQT(question(), { sensitive: true }, fill), /both answers/);
    assert.throws(() => randomizeUnknownUQT(question({ group_1_sensitive: 2 ** 52 }), BOTH, fill), /bad threshold/);
    assert.throws(
      () => randomizeUnknownUQT(question({ ...T, group_2_sensitive: 2 ** 53 }), BOTH, fill),
      /bad threshold/,
    );
    assert.throws(() => randomize(question(), true, fill), /randomizeUnknownUQT/);
  });

  it("memoizes {group, report} and lists the four reports", () => {
    const fill = queueSource([1, ...wordsFor(0)]);
    assert.deepEqual(draw(question(), BOTH, fill), { reported: { group: 2, report: true }, branch: "truth", group: 2 });
    assert.equal(possibleReports().length, 4);
    assert.ok(possibleReports().every((v) => validReport(question(), v)));
    assert.equal(validReport(question(), { group: 3, report: true }), false);
    assert.equal(validReport(question(), true), false);
  });
});
