// static/js/releases/results.js (issue 22.12): the release history showed "ε 0.5" while the budget
// recorded 0.498 spent, with nothing saying which is which. The history's figure is the requested
// ε; the budget line says what was charged (the composition) whenever the two differ.
// Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { composedNote, params } from "../../static/js/releases/results.js";

const laplace = (epsilon, charged = true) => ({ mechanism: "laplace", epsilon, delta: null, rho: null, charged });

describe("the requested and the charged ε", () => {
  it("labels the history's figure as requested", () => {
    assert.equal(params(laplace(0.5)), "requested ε 0.5");
  });
  it("names the charged composition when it differs from the requested sum", () => {
    const note = composedNote({ releases: [laplace(0.5)], epsilon_spent: 0.4981, delta_total: 1e-6, method: "pld" });
    assert.equal(note, " The releases below requested ε 0.500 in all; the budget is charged 0.498, their composition at δ = 0.000001 (pld).");
  });
  it("says nothing when they agree, and leaves refunded releases out", () => {
    assert.equal(composedNote({ releases: [laplace(0.5), laplace(0.3, false)], epsilon_spent: 0.5, delta_total: 1e-6, method: "basic" }), "");
    assert.equal(composedNote({ releases: [], epsilon_spent: 0, delta_total: 1e-6, method: "basic" }), "");
  });
});
