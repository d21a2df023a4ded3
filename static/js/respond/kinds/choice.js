/* A single-choice question (surveys/kinds/choice.py) on the respondent page: the true option is
 * tapped, then randomized by k-RR against the server's threshold (rr/randomizer.js); the report
 * is an option. */

import { randomize } from "../../rr/randomizer.js";
import { setupFlipper as flipper } from "../flipper.js";
import { pressFirst, quoted, randomizedSummary, reveals } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./choice.js"; // this module, registered below under its name

export const name = "choice";

export const draw = randomize;
export const validReport = (q, v) => q.options.includes(v);
export const possibleReports = (q) => q.options;

export const truthOf = (raw) => raw;
export const show = quoted;
export const meaning = reveals;
export const summary = (q, v) => randomizedSummary(q, show(q, v), meaning(q, v));
export const missing = pressFirst;

export function setupFlipper(section, q, page) {
  flipper(section, q, { show, meaning, truthOf, drawnView: (view) => view }, page);
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
