/* A choice question under optimized unary encoding (surveys/kinds/oue.py,
 * docs/formulas.md#oue) on the respondent page: the true option is tapped; then every option's
 * box is drawn on its own against the server's integer thresholds — the true option's box ticked
 * when U < keep (½), every other box ticked when U < flip (1/(e^ε + 1)) — memoized before
 * anything is shown (rr/memo.js). Only `{ option: ticked }` is kept and sent. */

import { checkedThresholds, registerDesign, uint53 } from "../../rr/randomizer.js";
import { fixed2, t, tParts } from "../i18n.js";
import { leaveOut, para, strong } from "../flipper.js";
import { pressFirst } from "../words.js";
import { registerKind } from "./index.js";
import * as thisKind from "./oue.js"; // this module, registered below under its name

export const name = "oue";

// Its thresholds (dpcore/local/oue.py `browser_plan`) are checked like every design's; only
// `randomizeOUE` draws them (the report is a box per option, not one answer).
registerDesign(name, { thresholds: ["keep", "flip"], refusal: "use randomizeOUE: the report is one box per option" });

/**
 * One draw U per option, in option order (two words each): the true option's box is ticked
 * when U < keep, every other box when U < flip. Returns `{ reported: { option: boolean },
 * branches: { option: "truth" | "other" } }`. A refused call draws nothing.
 */
export function randomizeOUE(q, truth, fill) {
  const { name: design, t: th } = checkedThresholds(q);
  if (design !== name) throw new Error(`not an OUE question: ${design}`);
  if (!q.options.includes(truth)) throw new Error("the true answer is not an option");
  const reported = {};
  const branches = {};
  for (const option of q.options) {
    const own = option === truth;
    reported[option] = uint53(fill) < (own ? th.keep : th.flip);
    branches[option] = own ? "truth" : "other";
  }
  return { reported, branches };
}

export const draw = randomizeOUE;

export const validReport = (q, v) =>
  v !== null &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.keys(v).length === q.options.length &&
  q.options.every((o) => typeof v[o] === "boolean");

/** Every box ticked (the shortest JSON) and none (the longest): the padding's extremes. */
export const possibleReports = (q) => [true, false].map((v) => Object.fromEntries(q.options.map((o) => [o, v])));

const label = (q, o) => t("quoted", { label: q.labels?.[o] ?? o });

/** What will be sent, in words: "TICKED: a, b · EMPTY: c". */
export function show(q, v) {
  const ticked = q.options.filter((o) => v[o]);
  const empty = q.options.filter((o) => !v[o]);
  const parts = [];
  if (ticked.length) parts.push(t("multi_ticked", { options: ticked.map((o) => label(q, o)).join(", ") }));
  if (empty.length) parts.push(t("multi_empty", { options: empty.map((o) => label(q, o)).join(", ") }));
  return parts.join(" · ");
}

/** The server's words for what the boxes reveal. */
export const meaning = (q) => q.protection.reports.any?.text ?? "";

export const summary = (q, v) =>
  t("summary_oue", { report: show(q, v), epsilon: fixed2(q.epsilon), meaning: meaning(q) });

export const missing = pressFirst;

function resultList(q, reported) {
  const ul = document.createElement("ul");
  ul.className = "multi-results";
  for (const option of q.options) {
    const li = document.createElement("li");
    li.dataset.option = option;
    li.append(
      ...tParts("multi_option_record", {
        option: label(q, option),
        report: strong(t(reported[option] ? "ticked" : "empty")),
      }),
    );
    ul.append(li);
  }
  return ul;
}

/** Wire the flipper: the truth buttons (one true option), one press draws every box. */
export function setupFlipper(section, q, page) {
  const flipper = section.querySelector("[data-role=flipper]");
  const pick = flipper.querySelector("[data-role=pick]");
  const flipButton = flipper.querySelector("[data-role=flip]");
  const result = flipper.querySelector("[data-role=result]");
  const truthButtons = [...flipper.querySelectorAll("[data-truth]")];
  let truth; // the true option: this closure variable is the only place it ever lives

  const stored = page.memo.reported(q);
  if (stored !== undefined) {
    pick.hidden = true;
    leaveOut(section);
    result.innerHTML = "";
    result.append(para(t("multi_already")), resultList(q, stored), para(t("multi_no_second_flip")), para(meaning(q)));
    return;
  }

  for (const button of truthButtons) {
    button.addEventListener("click", () => {
      for (const b of truthButtons) b.setAttribute("aria-pressed", String(b === button));
      truth = button.dataset.truth;
      flipButton.disabled = false;
    });
  }

  flipButton.addEventListener("click", () => {
    if (truth === undefined) return;
    const outcome = page.draw(q, truth); // memoized before anything is shown
    truth = undefined;
    for (const b of truthButtons) b.setAttribute("aria-pressed", "false");
    if (!outcome || !outcome.fresh) return;
    leaveOut(section);
    pick.hidden = true;
    result.innerHTML = "";
    result.append(para(t("multi_each_drawn")), resultList(q, outcome.reported), para(meaning(q)));
    section.querySelector("[data-role=next]")?.focus();
  });
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
