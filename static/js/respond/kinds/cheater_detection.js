/* The cheating-detection model (CDMsym; surveys/kinds/cheater_detection.py,
 * docs/formulas.md#cheater-detection) on the respondent page: a yes/no question whose report is
 * `{ group, report }`. The group is drawn first, then that group's forced response runs against
 * the server's thresholds; the page shows the drawn group's spinner. */

import { checkedThresholds, randomBelow, registerDesign, uint53 } from "../../rr/randomizer.js";
import { setupFlipper as flipper } from "../flipper.js";
import { pressFirst, randomizedSummary, reveals, yesNo } from "../words.js";
import { drawnView, groupedDraw, possibleReports, validReport } from "../two_groups.js";
import { registerKind } from "./index.js";
import * as thisKind from "./cheater_detection.js"; // this module, registered below under its name

export const name = "cheater_detection";

// Each group's forced-response thresholds (dpcore/local/cheater.py), checked like every design's
// (truth < yes in each group); drawn here, never by `randomize`.
registerDesign(name, {
  thresholds: ["group_1_truth", "group_1_yes", "group_2_truth", "group_2_yes"],
  check: (t) =>
    [1, 2]
      .filter((g) => !(t[`group_${g}_truth`] < t[`group_${g}_yes`]))
      .map((g) => `group ${g} truth ≥ yes`)
      .join(", "),
  refusal: "use randomizeCheater: the report carries its group",
});

/**
 * The group is drawn first, uniformly by rejection (exactly ½ each; one word), then one draw U
 * against that group's forced-response thresholds. Returns `{ group, reported, branch }` — the
 * group is stored with the report; it is independent of the true answer, so it reveals nothing
 * about it.
 */
export function randomizeCheater(q, truth, fill) {
  const { name: design, t } = checkedThresholds(q);
  if (design !== name) throw new Error(`not a cheater-detection question: ${design}`);
  if (typeof truth !== "boolean") throw new Error("a yes/no answer must be true or false");
  const group = 1 + randomBelow(2, fill);
  const u = uint53(fill);
  if (u < t[`group_${group}_truth`]) return { group, reported: truth, branch: "truth" };
  return u < t[`group_${group}_yes`]
    ? { group, reported: true, branch: "yes" }
    : { group, reported: false, branch: "no" };
}

/** The memo's draw: the group travels with the report (respond/two_groups.js). */
export const draw = groupedDraw(randomizeCheater);

export { drawnView, possibleReports, validReport };

export const truthOf = (raw) => raw === "true";
export const show = (q, v) => yesNo(v.report);
export const meaning = (q, v) => reveals(q, v.report ? "yes" : "no");
export const summary = (q, v) => randomizedSummary(q, show(q, v), meaning(q, v));
export const missing = pressFirst;

export function setupFlipper(section, q, page) {
  flipper(section, q, { show, meaning, truthOf, drawnView }, page);
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
