// static/js/rr/memo.js for the cheating-detection design: the memoized report is {group, report},
// drawn once by randomizeCheater; the page pads bodies over the four reports and shows the drawn
// group's spinner.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { drawnView, openMemo, possibleReports } from "../../static/js/rr/memo.js";
import { FakeStorage, loadAllKinds, noDraws, queueSource, wordsFor, yesNo } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

// dpcore.local.cheater.browser_thresholds(cheater_detection([{¼, ¼}, {⅙, ⅙}])) (new_designs.test.mjs).
const CDM = {
  group_1_truth: 2 ** 52,
  group_1_yes: 3 * 2 ** 51,
  group_2_truth: 6004799503160660,
  group_2_yes: 7505999378950827,
};
const question = () => {
  const q = yesNo("cheater_detection", CDM);
  q.key = "bribe";
  q.protection = { randomizer: { kind: "spinner", groups: [{ how: "one" }, { how: "two" }] } };
  return q;
};

describe("cheater detection memo", () => {
  it("stores {group, report} before returning it and never draws again", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    const q = question();
    // Group word 1 → group 2; U at group 2's YES threshold → a forced NO.
    const fill = queueSource([1, ...wordsFor(CDM.group_2_yes)]);
    const first = memo.draw(q, true, fill);
    assert.deepEqual(first, { reported: { group: 2, report: false }, branch: "no", group: 2, fresh: true });
    assert.equal(storage.getItem("deniable:s1:bribe"), '{"group":2,"report":false}');
    assert.deepEqual(memo.draw(q, false, noDraws), { reported: { group: 2, report: false }, fresh: false });
  });

  it("treats a stored plain boolean or a bad group as absent", () => {
    for (const raw of ["true", '{"group":3,"report":true}', '{"group":1}', '{"group":1,"report":true,"x":1}']) {
      const storage = new FakeStorage();
      storage.setItem("deniable:s1:bribe", raw);
      assert.equal(openMemo(() => storage, "s1").reported(question()), undefined, raw);
    }
  });

  it("lists the four reports and shows the drawn group's spinner", () => {
    const q = question();
    assert.equal(possibleReports(q).length, 4);
    assert.deepEqual(possibleReports(q)[3], { group: 2, report: false });
    assert.equal(drawnView(q, { group: 2 }).protection.randomizer.how, "two");
    assert.equal(drawnView(q, { branch: "yes" }), q);
  });
});
