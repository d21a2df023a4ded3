/* The crosswise model (surveys/kinds/crosswise.py, docs/formulas.md#crosswise) on the respondent
 * page: no randomizer. The respondent ticks SAME or DIFFERENT in the same radios the no-JavaScript
 * page posts; the reported boolean is `same`. */

import { randomize, registerDesign } from "../../rr/randomizer.js";
import { t } from "../i18n.js";
import { randomizedSummary, reveals } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./crosswise.js"; // this module, registered below under its name

export const name = "crosswise";

// Its design has no thresholds, and nothing to draw.
registerDesign(name, {
  thresholds: [],
  refusal: "the crosswise model has no randomizer: the respondent reports same/different",
});

export const draw = randomize; // refuses (registered above): a crosswise report is never drawn
export const possibleReports = () => [true, false];

/** SAME (true), DIFFERENT (false), or undefined when neither is ticked. */
export function directValue(form, q) {
  const checked = form.querySelector(`input[name="q-${CSS.escape(q.key)}"]:checked`);
  return checked ? checked.value.trim() === "same" : undefined; // values are space-padded
}

export const show = (q, v) => t(v ? "same" : "different");
export const meaning = (q, v) => reveals(q, v ? "yes" : "no");
export const summary = (q, v) => randomizedSummary(q, show(q, v), meaning(q, v), "summary_paired");
export const missing = () => t("tick_same_different");

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
