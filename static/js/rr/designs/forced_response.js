/* Forced response (dpcore/local/designs/forced_response.py) on the respondent page: one draw U
 * against the server's cumulative thresholds — U < truth → the true answer ("truth"), U < yes →
 * YES ("yes"), else NO ("no"). One draw against cumulative thresholds gives exact proportions:
 * P(YES | trait) = yes/2⁵³, P(YES | no trait) = (yes − truth)/2⁵³. Two words. */

import { registerDesign, uint53 } from "../randomizer.js";

export const name = "forced_response";

/** The truth-or-forced device, shared with the designs the server runs on the same thresholds
 * (rr/designs/two_probability.js; dpcore's `realise_truth_yes`). */
export const truthOrForced = Object.freeze({
  thresholds: ["truth", "yes"],
  check: (t) => (t.truth < t.yes ? "" : "truth ≥ yes"),
  draw(t, truth, fill) {
    const u = uint53(fill);
    if (u < t.truth) return { reported: truth, branch: "truth" };
    return u < t.yes ? { reported: true, branch: "yes" } : { reported: false, branch: "no" };
  },
});

registerDesign(name, truthOrForced);
