/* The unrelated question with an unknown innocuous prevalence (RRreg's UQTunknown;
 * surveys/kinds/unrelated_question_unknown.py, docs/formulas.md#unrelated-question-unknown) on the respondent
 * page: a yes/no question whose report is `{ group, report }`. The group is drawn first (½ each),
 * then U < group_<g>_sensitive asks the sensitive question, else the other (innocuous) one — whose
 * answer is the respondent's own, tapped before the draw beside the true answer: no chance
 * simulates it (its prevalence is unknown; that is the design). */

import { checkedThresholds, randomBelow, registerDesign, uint53 } from "../../rr/randomizer.js";
import { para, setupFlipper as flipper } from "../flipper.js";
import { pressFirst, randomizedSummary, reveals, yesNo } from "../words.js";
import { drawnView, groupedDraw, possibleReports, validReport } from "../two_groups.js";
import { registerKind } from "./index.js";
import * as thisKind from "./unrelated_question_unknown.js"; // this module, registered below under its name

export const name = "unrelated_question_unknown";

// Each group's threshold (dpcore/local/designs/unrelated_question_unknown.py); drawn here only.
registerDesign(name, {
  thresholds: ["group_1_sensitive", "group_2_sensitive"],
  refusal: "use randomizeUnknownUQT: the report carries its group",
});

/**
 * `truth`: `{ sensitive, innocuous }`, the respondent's answers to both questions. The group is
 * drawn uniformly by rejection (exactly ½ each), then one draw U against the group's threshold.
 * Returns `{ group, reported, branch }` ("truth": the sensitive question was asked; "innocuous":
 * the other one).
 */
export function randomizeUnknownUQT(q, truth, fill) {
  const { name: design, t } = checkedThresholds(q);
  if (design !== name) throw new Error(`not an unknown-prevalence unrelated question: ${design}`);
  if (typeof truth?.sensitive !== "boolean" || typeof truth?.innocuous !== "boolean")
    throw new Error("both answers must be true or false");
  const group = 1 + randomBelow(2, fill);
  return uint53(fill) < t[`group_${group}_sensitive`]
    ? { group, reported: truth.sensitive, branch: "truth" }
    : { group, reported: truth.innocuous, branch: "innocuous" };
}

/** The memo's draw: the group travels with the report (respond/two_groups.js). */
export const draw = groupedDraw(randomizeUnknownUQT);

export { drawnView, possibleReports, validReport };

export const show = (q, v) => yesNo(v.report);
export const meaning = (q, v) => reveals(q, v.report ? "yes" : "no");
export const summary = (q, v) => randomizedSummary(q, show(q, v), meaning(q, v));
export const missing = pressFirst;

/** The other question's YES/NO (`data-innocuous`) go above the true-answer buttons, which wait
 * for it; both answers live only in this closure and are forgotten once drawn. */
export function setupFlipper(section, q, page) {
  let innocuous;
  const truthOf = (raw) => ({
    sensitive: raw === "true",
    get innocuous() {
      return innocuous;
    },
  });
  const fresh = page.memo.reported(q) === undefined;
  flipper(section, q, { show, meaning, truthOf, drawnView }, page);
  const pick = section.querySelector("[data-role=pick]");
  if (!fresh || !pick) return;
  const truthButtons = [...section.querySelectorAll("[data-truth]")];
  const buttons = [true, false].map((value) => {
    const b = section.ownerDocument.createElement("button");
    b.type = "button";
    b.dataset.innocuous = String(value);
    b.setAttribute("aria-pressed", "false");
    b.textContent = yesNo(value);
    b.addEventListener("click", () => {
      innocuous = value;
      for (const other of buttons) other.setAttribute("aria-pressed", String(other === b));
      for (const t of truthButtons) t.disabled = false;
    });
    return b;
  });
  pick.prepend(para(q.protection.innocuous_prompt, " ", ...buttons));
  for (const t of truthButtons) t.disabled = true;
  // Registered after the flipper's own listener: runs once the report is drawn, and forgets.
  section.querySelector("[data-role=flip]")?.addEventListener("click", () => {
    innocuous = undefined;
    for (const b of buttons) b.setAttribute("aria-pressed", "false");
  });
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
