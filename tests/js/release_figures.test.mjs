// static/js/releases/results.js (issue 22.12): the release history showed "ε 0.5" while the budget
// recorded 0.498 spent. The history now shows one figure, the one charged (`charged_epsilon`: what
// charging the release added to the spent ε), with the mechanism's own parameters as "requested";
// releases charged before that field existed keep the note saying which figure is which.
// Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { composedNote, params } from "../../static/js/releases/results.js";

const laplace = (epsilon, charged = true, chargedEpsilon = null) => ({
  mechanism: "laplace",
  epsilon,
  delta: null,
  rho: null,
  charged,
  charged_epsilon: chargedEpsilon,
});

describe("the charged and the requested ε", () => {
  it("shows the charged figure first, the requested parameters after it", () => {
    assert.equal(params(laplace(0.5, true, 0.49813)), "ε charged 0.498 (requested ε 0.5)");
  });
  it("shows only the requested figure for a refunded release or an old one", () => {
    assert.equal(params(laplace(0.5, false, 0.49813)), "requested ε 0.5");
    assert.equal(params(laplace(0.5)), "requested ε 0.5");
  });
  it("needs no note when every charged release carries its charged figure", () => {
    const d = { releases: [laplace(0.5, true, 0.4981)], epsilon_spent: 0.4981, delta_total: 1e-6, method: "pld" };
    assert.equal(composedNote(d), "");
  });
  it("names the charged composition for old releases when it differs from the requested sum", () => {
    const note = composedNote({ releases: [laplace(0.5)], epsilon_spent: 0.4981, delta_total: 1e-6, method: "pld" });
    assert.equal(
      note,
      " The releases below requested ε 0.500 in all; the budget is charged 0.498, their composition at δ = 0.000001 (pld).",
    );
  });
  it("says nothing when they agree, and leaves refunded releases out", () => {
    assert.equal(
      composedNote({
        releases: [laplace(0.5), laplace(0.3, false)],
        epsilon_spent: 0.5,
        delta_total: 1e-6,
        method: "basic",
      }),
      "",
    );
    assert.equal(composedNote({ releases: [], epsilon_spent: 0, delta_total: 1e-6, method: "basic" }), "");
  });
});
