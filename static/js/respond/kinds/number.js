/* A number question (surveys/kinds/number.py) on the respondent page: typed directly (never
 * randomized), checked against the question's bounds and whole-number rule. */

import { t } from "../i18n.js";
import { directSummary } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./number.js"; // this module, registered below under its name

export const name = "number";

const input = (form, q) => form.elements[`q-${q.key}`];

/** "A number", or "a (whole) number between min and max" when both bounds are set. */
const rule = (q) =>
  q.min == null || q.max == null
    ? t("enter_number")
    : t(q.integer ? "whole_number_between" : "number_between", { min: q.min, max: q.max });

/** A number typed but not acceptable (out of range, a fraction where whole numbers are asked, or
 * not a number at all) is an error on every question, optional ones too: never dropped as if the
 * question had been left unanswered (issue 22 item 1). The words name the rule broken. */
export function problem(form, q) {
  const field = input(form, q);
  if (!field || (field.value === "" && !field.validity.badInput)) return "";
  const x = Number(field.value);
  const ok =
    !field.validity.badInput &&
    Number.isFinite(x) &&
    (q.min == null || x >= q.min) &&
    (q.max == null || x <= q.max) &&
    (!q.integer || Number.isInteger(x));
  return ok ? "" : rule(q);
}

/** The typed number, or undefined when nothing (or nothing acceptable) is typed. */
export function directValue(form, q) {
  const field = input(form, q);
  if (field.value === "" || problem(form, q)) return undefined;
  return Number(field.value);
}

export const summary = (q, v) => directSummary(q, v);
export const missing = rule;

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
