// The builder's character counter (static/js/builder/counter.js, issue 22 item 11).
import { test } from "node:test";
import assert from "node:assert/strict";

import { counterText } from "../../static/js/builder/counter.js";

test("the counter says the length and the limit", () => {
  assert.equal(counterText(0, 200), "0 / 200 characters");
  assert.equal(counterText(200, 200), "200 / 200 characters");
});

test("past the limit it says by how much, nothing is cut", () => {
  assert.equal(counterText(600, 200), "600 / 200 characters: 400 too many");
});
