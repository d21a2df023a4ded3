/* Randomized multi-select on the respondent page (docs/respondent-pages.md#multi).
 *
 * The respondent ticks the options that are TRUE for them in checkboxes with no name (never a
 * form field, never posted, never stored); one press randomizes every option separately through
 * the question's yes/no design (rr/randomizer.js `randomizeMulti`, one independent draw per
 * option, Web Crypto), memoized before anything is shown (rr/memo.js). The ticks are cleared at
 * once; only `{ option: reported }` is kept and sent. No animation: the per-option results are
 * listed, with the words the server wrote for a ticked and an empty box (surveys/protection.py).
 */

import { StorageBlockedError } from "../rr/memo.js";
import { fixed2, t, tParts } from "./i18n.js";
import { whatHappened } from "./stage.js";

const word = (v) => t(v ? "ticked" : "empty");
const label = (q, o) => t("quoted", { label: q.labels?.[o] ?? o });

/** What will be sent, in words: "TICKED: a, b · EMPTY: c". */
export function showMulti(q, v) {
  const ticked = q.options.filter((o) => v[o]);
  const empty = q.options.filter((o) => !v[o]);
  const parts = [];
  if (ticked.length) parts.push(t("multi_ticked", { options: ticked.map((o) => label(q, o)).join(", ") }));
  if (empty.length) parts.push(t("multi_empty", { options: empty.map((o) => label(q, o)).join(", ") }));
  return parts.join(" · ");
}

/** The server's words for what a ticked (and an empty) box reveals. */
export function meaningMulti(q) {
  return q.protection.reports.yes?.text ?? "";
}

/** The summary line before sending: what is sent, how, the summed ε and what a box reveals. */
export function summaryMulti(q, v) {
  return t("summary_multi", {
    report: showMulti(q, v), epsilon: fixed2(q.epsilon), k: q.options.length, per_option: fixed2(q.epsilon_per_option), meaning: meaningMulti(q),
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
    li.append(...tParts("multi_option_record", { option: label(q, option), report: strong }), branches ? ` — ${whatHappened(q, { branch: branches[option], reported: reported[option] })}` : "");
    ul.append(li);
  }
  return ul;
}

/**
 * Wire one multi question's flipper. `memo` is the page's Memo, `fill` Web Crypto's
 * getRandomValues, `onBlocked` the page's fall-back to the physical form.
 */
export function setupMultiFlipper(section, q, { memo, fill, onBlocked }) {
  const flipper = section.querySelector("[data-role=flipper]");
  const pick = flipper.querySelector("[data-role=pick]");
  const flipButton = flipper.querySelector("[data-role=flip]");
  const result = flipper.querySelector("[data-role=result]");
  const boxes = [...flipper.querySelectorAll("[data-truth-option]")];

  const stored = memo.reported(q);
  if (stored !== undefined) {
    pick.hidden = true;
    result.innerHTML = "";
    result.append(
      para(t("multi_already")),
      resultList(q, stored, null),
      para(t("multi_no_second_flip")),
      para(meaningMulti(q)),
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
      outcome = memo.draw(q, truths, fill);
    } catch (error) {
      if (error instanceof StorageBlockedError) { onBlocked(); return; }
      throw error;
    } finally {
      for (const b of boxes) b.checked = false; // forget the truths on the page
    }
    if (!outcome.fresh) return;
    pick.hidden = true;
    result.innerHTML = "";
    result.append(
      para(t("multi_each_drawn")),
      resultList(q, outcome.reported, outcome.branches),
      para(meaningMulti(q)),
    );
    section.querySelector("[data-role=next]")?.focus();
  });
}
