/* A yes/no question (surveys/kinds/yes_no.py) on the respondent page: the true YES or NO is
 * tapped, then randomized by the question's design against the server's thresholds
 * (rr/randomizer.js); the report is a boolean. */

import { randomize } from "../../rr/randomizer.js";
import { setupFlipper as flipper } from "../flipper.js";
import { pressFirst, randomizedSummary, reveals, yesNo } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./yes_no.js"; // this module, registered below under its name

export const name = "yes_no";

export const draw = randomize;
export const validReport = (q, v) => typeof v === "boolean";
export const possibleReports = () => [true, false];

export const truthOf = (raw) => raw === "true";
export const show = (q, v) => yesNo(v);
export const meaning = (q, v) => reveals(q, v ? "yes" : "no");
export const summary = (q, v) => randomizedSummary(q, show(q, v), meaning(q, v));
export const missing = pressFirst;

export function setupFlipper(section, q, page) {
  flipper(section, q, { show, meaning, truthOf, drawnView: (view) => view }, page);
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
