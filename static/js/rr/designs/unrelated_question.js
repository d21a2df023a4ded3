/* The unrelated question (dpcore/local/designs/unrelated_question.py) on the respondent page:
 * one draw U; U < sensitive → the true answer ("truth"); else a second draw U′ < innocuous_yes
 * simulates the harmless question's answer, whose prevalence is known ("innocuous"). Two words,
 * or four. */

import { registerDesign, uint53 } from "../randomizer.js";

export const name = "unrelated_question";

registerDesign(name, {
  thresholds: ["sensitive", "innocuous_yes"],
  draw(t, truth, fill) {
    if (uint53(fill) < t.sensitive) return { reported: truth, branch: "truth" };
    return { reported: uint53(fill) < t.innocuous_yes, branch: "innocuous" };
  },
});
