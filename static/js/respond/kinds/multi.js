/* Randomized multi-select (surveys/kinds/multi.py) on the respondent page
 * (docs/respondent-pages.md#multi).
 *
 * The respondent ticks the options that are TRUE for them in checkboxes with no name (never a
 * form field, never posted, never stored); one press randomizes every option separately through
 * the question's yes/no design (`randomizeMulti` below: one independent draw per option through
 * rr/randomizer.js, Web Crypto), memoized before anything is shown (rr/memo.js). The ticks are cleared at
 * once; only `{ option: reported }` is kept and sent. No animation: the per-option results are
 * listed, with the words the server wrote for a ticked and an empty box (surveys/pages/protection.py).
 */

import { checkedThresholds, randomize } from "../../rr/randomizer.js";
import { fixed2, t, tParts } from "../i18n.js";
import { visual, whatHappened } from "../stage.js";
import { registerKind } from "./index.js";
import * as thisKind from "./multi.js"; // this module, registered below under its name

export const name = "multi";

/**
 * Randomized multi-select (docs/formulas.md#multi): `truths` is `{ option: boolean }` with every
 * option of the question; each option's truth goes through the question's yes/no design on its
 * own, with its own draw(s), in option order — independent reports, so the question's ε is the
 * sum of the options' ε (the server's `epsilon`). Returns `{ reported: { option: boolean },
 * branches: { option: branch } }`.
 */
export function randomizeMulti(q, truths, fill) {
  if (q.kind !== name) throw new Error(`not a multi question: ${q.kind}`);
  if (truths === null || typeof truths !== "object") throw new Error("multi truths must be an object");
  const extra = Object.keys(truths).filter((o) => !q.options.includes(o));
  if (extra.length) throw new Error(`unknown option(s): ${extra.join(", ")}`);
  // Every truth is checked before the first draw: a refused call draws nothing.
  for (const option of q.options) {
    if (typeof truths[option] !== "boolean") throw new Error(`the true answer for “${option}” must be true or false`);
  }
  checkedThresholds(q);
  const reported = {};
  const branches = {};
  for (const option of q.options) {
    const one = randomize(q, truths[option], fill);
    reported[option] = one.reported;
    branches[option] = one.branch;
  }
  return { reported, branches };
}

export const draw = randomizeMulti;

export const validReport = (q, v) =>
  v !== null &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.keys(v).length === q.options.length &&
  q.options.every((o) => typeof v[o] === "boolean");

/** A multi question's 2^k reports are represented by the two extremes: every option true (the
 * shortest JSON) and every option false (the longest: "false" is one byte longer than "true" per
 * option). */
export const possibleReports = (q) => [true, false].map((v) => Object.fromEntries(q.options.map((o) => [o, v])));

const word = (v) => t(v ? "ticked" : "empty");
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

/** The server's words for what a ticked (and an empty) box reveals. */
export function meaning(q) {
  return q.protection.reports.yes?.text ?? "";
}

/** The summary line before sending: what is sent, how, the summed ε and what a box reveals. */
export function summary(q, v) {
  return t("summary_multi", {
    report: show(q, v),
    epsilon: fixed2(q.epsilon),
    k: q.options.length,
    per_option: fixed2(q.epsilon_per_option),
    meaning: meaning(q),
  });
}

function para(text) {
  const p = document.createElement("p");
  p.textContent = text;
  return p;
}

function resultList(q, reported, branches) {
  const ul = document.createElement("ul");
  ul.className = "multi-results";
  for (const option of q.options) {
    const li = document.createElement("li");
    const strong = document.createElement("strong");
    strong.className = "reported";
    strong.textContent = word(reported[option]);
    li.dataset.option = option;
    li.append(
      ...tParts("multi_option_record", { option: label(q, option), report: strong }),
      branches ? ` — ${whatHappened(q, { branch: branches[option], reported: reported[option] })}` : "",
    );
    ul.append(li);
  }
  return ul;
}

export const missing = (q) => t("tick_then_press", { button: visual(q).button });

/**
 * Wire one multi question's flipper. `page`: `memo` (the page's Memo) and `draw(q, truths)`, the
 * memo's draw that answers null when storage is blocked (the page has then fallen back to the
 * physical form).
 */
export function setupFlipper(section, q, page) {
  const flipper = section.querySelector("[data-role=flipper]");
  const pick = flipper.querySelector("[data-role=pick]");
  const flipButton = flipper.querySelector("[data-role=flip]");
  const result = flipper.querySelector("[data-role=result]");
  const boxes = [...flipper.querySelectorAll("[data-truth-option]")];

  const stored = page.memo.reported(q);
  if (stored !== undefined) {
    pick.hidden = true;
    result.innerHTML = "";
    result.append(
      para(t("multi_already")),
      resultList(q, stored, null),
      para(t("multi_no_second_flip")),
      para(meaning(q)),
    );
    return;
  }

  // Ticking nothing is a true answer too ("none of these"), so the button works at once.
  flipButton.disabled = false;
  flipButton.addEventListener("click", () => {
    // The truths live only in this local object, read from the unnamed boxes at this moment.
    const truths = Object.fromEntries(boxes.map((b) => [b.dataset.truthOption, b.checked]));
    let outcome;
    try {
      outcome = page.draw(q, truths);
    } finally {
      for (const b of boxes) b.checked = false; // forget the truths on the page
    }
    if (!outcome || !outcome.fresh) return;
    pick.hidden = true;
    result.innerHTML = "";
    result.append(para(t("multi_each_drawn")), resultList(q, outcome.reported, outcome.branches), para(meaning(q)));
    section.querySelector("[data-role=next]")?.focus();
  });
}

registerKind(thisKind); // the page loads every kind's module (respond/kinds/index.js)
