// static/js/respond/skip.js: which questions are shown (skip logic follows category answers
// only), the "No answer" radio reads as unanswered, Next/Back pass over hidden steps; and
// static/js/respond/body.js pads only the randomized reports that are sent.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { padding } from "../../static/js/respond/body.js";
import { answers, nextShown } from "../../static/js/respond/skip.js";
import { loadAllKinds } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

const Q = [
  { key: "age", kind: "category", options: ["18-29", "30+"] },
  { key: "kids", kind: "number", show_if: { key: "age", in: ["30+"] } },
  { key: "school", kind: "category", options: ["yes", "no"], show_if: { key: "kids", in: ["x"] } },
  { key: "pets", kind: "number", show_if: { key: "kids_age", in: ["x"] } },
];
const items = new Map(Q.map((q) => [q.key, q]));

describe("skip logic", () => {
  it("shows a question only after one of its category answers", () => {
    const raw = { age: "18-29", kids: 2 };
    const { shown, answerOf } = answers(items, (q) => raw[q.key]);
    assert.equal(shown(items.get("kids")), false);
    assert.equal(answerOf(items.get("kids")), undefined); // hidden: never sent, though typed
    raw.age = "30+";
    assert.equal(shown(items.get("kids")), true);
    assert.equal(answerOf(items.get("kids")), 2);
  });
  it("a hidden source hides its dependents; an unknown source hides", () => {
    const { shown } = answers(items, () => "x");
    assert.equal(shown(items.get("school")), false); // kids is hidden (age "x" is not "30+")
    assert.equal(shown(items.get("pets")), false);
  });
  it("the No answer radio reads as unanswered", () => {
    const { answerOf } = answers(items, () => "");
    assert.equal(answerOf(items.get("age")), undefined);
  });
  it("Next and Back pass over hidden steps, never past the ends", () => {
    const steps = [...Q.map((q) => ({ dataset: { key: q.key } })), { dataset: {} }];
    const shown = (q) => q.key === "age";
    assert.equal(nextShown(steps, items, shown, 0, 1), 4); // straight to the summary
    assert.equal(nextShown(steps, items, shown, 4, -1), 0);
  });
});

describe("padding", () => {
  it("pads only the randomized answers that are sent", () => {
    const qs = [
      { key: "a", kind: "yes_no", kind_name: "yes_no", randomized: true },
      { key: "b", kind: "yes_no", kind_name: "yes_no", randomized: true },
    ];
    assert.equal(padding(qs, { a: true }), " "); // "true" vs "false": one byte; b left out
    assert.equal(padding(qs, {}), "");
  });
});
