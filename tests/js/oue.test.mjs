// Optimized unary encoding on the respondent page (issue 26.1): one draw per option against the
// server's integer thresholds (respond/kinds/oue.js randomizeOUE) — the true option's box ticked
// when U < keep, every other box when U < flip — at the exact thresholds; the report
// {option: boolean} memoized once (rr/memo.js), padding over its longest report.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { checkedThresholds, randomize } from "../../static/js/rr/randomizer.js";
import { openMemo, possibleReports } from "../../static/js/rr/memo.js";
import { randomizeOUE } from "../../static/js/respond/kinds/oue.js";
import { FakeStorage, GRID, cryptoSource, loadAllKinds, noDraws, queueSource, wordsFor } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

// ε = ln 3 (dpcore.local.oue.browser_plan): keep = 2⁵² (½), flip = 2⁵¹ (¼).
const LN3 = { keep: 2 ** 52, flip: 2 ** 51 };
const OPTIONS = ["a", "b", "c"];
const oue = (thresholds = LN3) => ({
  key: "brand",
  kind: "choice",
  kind_name: "oue",
  design: { name: "oue" },
  thresholds,
  options: [...OPTIONS],
});

describe("randomizeOUE", () => {
  it("ticks the true box iff U < keep and each other box iff U < flip, in option order", () => {
    // a (the truth): U = keep − 1 → ticked; b: U = flip → empty; c: U = flip − 1 → ticked.
    let fill = queueSource([...wordsFor(LN3.keep - 1), ...wordsFor(LN3.flip), ...wordsFor(LN3.flip - 1)]);
    let out = randomizeOUE(oue(), "a", fill);
    assert.deepEqual(out.reported, { a: true, b: false, c: true });
    assert.deepEqual(out.branches, { a: "truth", b: "other", c: "other" });
    assert.equal(fill.left(), 0);
    // b (the truth): U = keep → empty even though U < keep is one step away; a, c: U = 0 → ticked.
    fill = queueSource([...wordsFor(0), ...wordsFor(LN3.keep), ...wordsFor(0)]);
    out = randomizeOUE(oue(), "b", fill);
    assert.deepEqual(out.reported, { a: true, b: false, c: true });
    // The largest U: nothing is ticked.
    fill = queueSource([...wordsFor(GRID - 1), ...wordsFor(GRID - 1), ...wordsFor(GRID - 1)]);
    assert.deepEqual(randomizeOUE(oue(), "c", fill).reported, { a: false, b: false, c: false });
  });

  it("refuses a truth that is no option, a foreign design and bad thresholds, drawing nothing", () => {
    assert.throws(() => randomizeOUE(oue(), "z", noDraws), /not an option/);
    assert.throws(
      () => randomizeOUE({ ...oue(), design: { name: "k_rr" }, thresholds: { keep: 5 } }, "a", noDraws),
      /not an OUE/,
    );
    assert.throws(() => randomizeOUE(oue({ keep: 2 ** 52 }), "a", noDraws), /bad threshold oue.flip/);
    assert.throws(() => randomizeOUE(oue({ keep: GRID, flip: 1 }), "a", noDraws), /bad threshold oue.keep/);
    assert.throws(() => randomize(oue(), "a", noDraws), /randomizeOUE/); // never run as one answer
    assert.equal(checkedThresholds(oue()).name, "oue");
  });

  it("with Web Crypto, the true box is ticked half of the time and the others a quarter", () => {
    // 8,000 draws: SD of a share ≤ √(¼/8000) ≈ 0.0056; 0.035 is over 6 SD (α < 1e-9 each).
    const n = 8000;
    let own = 0;
    let other = 0;
    for (let i = 0; i < n; i += 1) {
      const { reported } = randomizeOUE(oue(), "a", cryptoSource);
      own += reported.a;
      other += reported.b;
    }
    assert.ok(Math.abs(own / n - 0.5) < 0.035, `true box ${own / n}`);
    assert.ok(Math.abs(other / n - 0.25) < 0.035, `other box ${other / n}`);
  });
});

describe("OUE memo", () => {
  it("stores the boxes before returning them and never draws again", () => {
    const storage = new FakeStorage();
    const memo = openMemo(() => storage, "s1");
    const fill = queueSource([...wordsFor(0), ...wordsFor(GRID - 1), ...wordsFor(GRID - 1)]);
    const first = memo.draw(oue(), "a", fill);
    assert.equal(first.fresh, true);
    assert.equal(storage.getItem("deniable:s1:brand"), '{"a":true,"b":false,"c":false}');
    assert.deepEqual(memo.draw(oue(), "c", noDraws), { reported: first.reported, fresh: false });
  });

  it("pads to the longest report: every box empty", () => {
    const lengths = possibleReports(oue()).map((r) => JSON.stringify(r).length);
    assert.equal(Math.max(...lengths), JSON.stringify({ a: false, b: false, c: false }).length);
  });
});
