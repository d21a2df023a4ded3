/* A category question (surveys/kinds/category.py) on the respondent page: answered directly with
 * a radio (never randomized); skip logic follows its answers (respond/skip.js). */

import { t } from "../i18n.js";
import { directSummary } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./category.js"; // this module, registered below under its name

export const name = "category";

/** The ticked option's value, or undefined. */
export function directValue(form, q) {
  const checked = form.querySelector(`input[name="q-${CSS.escape(q.key)}"]:checked`);
  return checked ? checked.value : undefined;
}

export const summary = (q, v) => directSummary(q, q.labels?.[v] ?? v);
export const missing = () => t("choose");

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
