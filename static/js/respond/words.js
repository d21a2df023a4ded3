/* Words the respondent page's kind modules share (respond/kinds/): a report in quotes, YES/NO, the
 * server's sentence about what a report reveals, and the summary lines before sending. Every
 * string is the server's (i18n.js); every number shown is the server's too. */

import { fixed2, t } from "./i18n.js";
import { visual } from "./stage.js";

/** An option as the respondent reads it: its label in the page's language, in quotes. */
export const quoted = (q, v) => t("quoted", { label: q.labels?.[v] ?? v });

/** YES or NO. */
export const yesNo = (v) => t(v ? "yes" : "no");

/** The server's words for what the report `key` reveals (surveys/pages/protection.py). */
export const reveals = (q, key) => q.protection.reports[key]?.text ?? "";

/** The summary line of a randomized answer: what is sent, its ε and what it reveals. */
export const randomizedSummary = (q, report, meaning, key = "summary_randomized") =>
  t(key, { report, epsilon: fixed2(q.epsilon), meaning });

/** The summary line of a direct answer: the value and how the server handles it. */
export const directSummary = (q, value) => t("summary_direct", { value, handling: q.protection.handling_text });

/** "Tap your answer, then press …" (a randomized question with no report yet). */
export const pressFirst = (q) => t("tap_then_press", { button: visual(q).button });
