/* Warner's design (dpcore/local/designs/warner.py) on the respondent page: one draw U;
 * U < as_asked → the answer to the statement as asked ("truth"), else to its opposite
 * ("negation"). Two words. */

import { registerDesign, uint53 } from "../randomizer.js";

export const name = "warner";

registerDesign(name, {
  thresholds: ["as_asked"],
  // The report is the answer to whichever statement chance picked.
  draw: (t, truth, fill) =>
    uint53(fill) < t.as_asked ? { reported: truth, branch: "truth" } : { reported: !truth, branch: "negation" },
});
