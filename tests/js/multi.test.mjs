// Randomized multi-select in the page modules (issue 16): one independent draw per option
// through the question's yes/no thresholds (respond/kinds/multi.js randomizeMulti), the report
// {option: boolean} memoized once (rr/memo.js), padding over its longest report.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { openMemo, possibleReports } from "../../static/js/rr/memo.js";
import { randomizeMulti } from "../../static/js/respond/kinds/multi.js";
import { FakeStorage, GRID, cryptoSource, loadAllKinds, noDraws, queueSource, wordsFor } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

// The coin design's thresholds from the server (dpcore.local.browser): truth 2⁵², yes 3·2⁵¹.
const COIN = { truth: 2 ** 52, yes: 3 * 2 ** 51 };
const OPTIONS = ["cannabis", "cocaine", "ecstasy"];
const multi = (thresholds = COIN, name = "forced_response") => ({
  key: "drugs",
  kind: "multi",
  kind_name: "multi",
  design: { name },
  thresholds,
  options: [...OPTIONS],
});

describe("randomizeMulti", () => {
  it("draws each option on its own, in option order, against the server's thresholds", () => {
    // cannabis: U just below truth → its truth (true); cocaine: U at truth → forced YES;
    // ecstasy: U at yes → forced NO. Two words per option, nothing more.
    const fill = queueSource([...wordsFor(COIN.truth - 1), ...wordsFor(COIN.truth), ...wordsFor(COIN.yes)]);
    const out = randomizeMulti(multi(), { cannabis: true, cocaine: false, ecstasy: true }, fill);
    assert.deepEqual(out.reported, { cannabis: true, cocaine: true, ecstasy: false });
    assert.deepEqual(out.branches, { cannabis: "truth", cocaine: "yes", ecstasy: "no" });
    assert.equal(fill.left(), 0);
  });

  it("refuses truths that are missing, extra or not booleans, and foreign kinds", () => {
    const q = multi();
    assert.throws(() => randomizeMulti(q, { cannabis: true, cocaine: false }, noDraws), /ecstasy/);
    assert.throws(
      () => randomizeMulti(q, { cannabis: true, cocaine: false, ecstasy: false, heroin: true }, noDraws),
      /heroin/,
    );
    assert.throws(() => randomizeMulti(q, { cannabis: "yes", cocaine: false, ecstasy: false }, noDraws), /cannabis/);
    assert.throws(() => randomizeMulti({ ...q, kind: "yes_no" }, {}, noDraws), /not a multi/);
    assert.throws(() => randomizeMulti(q, null, noDraws), /object/);
  });

  it("refuses thresholds the server did not send (never guesses a probability)", () => {
    const truths = { cannabis: true, cocaine: false, ecstasy: false };
    assert.throws(() => randomizeMulti(multi({ truth: 2 ** 52 }), truths, cryptoSource), /bad threshold/);
    assert.throws(() => randomizeMulti(multi({ truth: GRID, yes: GRID }), truths, cryptoSource), /bad threshold/);
  });

  it("with Web Crypto, each option is reported yes at c·π + d independently (seedless check)", () => {
    // 6,000 draws per option; P(yes | true) = ¾, P(yes | false) = ¼. SD of a share ≈ 0.0056:
    // 0.04 is over 7 SD, and the joint share of (yes, yes) must be the product of the margins.
    const q = multi();
    const n = 6000;
    let yes0 = 0,
      yes1 = 0,
      both = 0;
    for (let i = 0; i < n; i += 1) {
      const { reported } = randomizeMulti(q, { cannabis: true, cocaine: false, ecstasy: false }, cryptoSource);
      yes0 += reported.cannabis;
      yes1 += reported.cocaine;
      both += reported.cannabis && reported.cocaine;
    }
    assert.ok(Math.abs(yes0 / n - 0.75) < 0.04, `cannabis ${yes0 / n}`);
    assert.ok(Math.abs(yes1 / n - 0.25) < 0.04, `cocaine ${yes1 / n}`);
    assert.ok(Math.abs(both / n - 0.75 * 0.25) < 0.04, `joint ${both / n}`);
  });
});

describe("multi memo", () => {
  it("stores {option: boolean} before returning it and never draws again", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    const q = multi();
    const fill = queueSource([...wordsFor(0), ...wordsFor(COIN.truth), ...wordsFor(GRID - 1)]);
    const first = memo.draw(q, { cannabis: false, cocaine: false, ecstasy: true }, fill);
    assert.equal(first.fresh, true);
    assert.deepEqual(first.reported, { cannabis: false, cocaine: true, ecstasy: false });
    assert.equal(storage.getItem("deniable:s1:drugs"), '{"cannabis":false,"cocaine":true,"ecstasy":false}');
    const again = memo.draw(q, { cannabis: true, cocaine: true, ecstasy: true }, noDraws);
    assert.deepEqual(again, { reported: first.reported, fresh: false });
  });

  it("treats a stored value of the wrong shape as absent", () => {
    for (const raw of [
      "true",
      '"cannabis"',
      '{"cannabis":true}',
      '{"cannabis":true,"cocaine":false,"ecstasy":1}',
      '{"cannabis":true,"cocaine":false,"ecstasy":false,"heroin":true}',
      "[true,false,true]",
    ]) {
      const storage = new FakeStorage();
      storage.setItem("deniable:s1:drugs", raw);
      assert.equal(openMemo(() => storage, "s1").reported(multi()), undefined, raw);
    }
  });

  it("pads to the longest report: every option false", () => {
    const reports = possibleReports(multi());
    const lengths = reports.map((r) => JSON.stringify(r).length);
    assert.deepEqual(reports[1], { cannabis: false, cocaine: false, ecstasy: false });
    assert.equal(Math.max(...lengths), JSON.stringify({ cannabis: false, cocaine: false, ecstasy: false }).length);
    // Any mixed report is no longer than the all-false one.
    assert.ok(JSON.stringify({ cannabis: true, cocaine: false, ecstasy: true }).length <= Math.max(...lengths));
  });
});
