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
import { whatHappened } from "./stage.js";

const word = (v) => (v ? "TICKED" : "EMPTY");

/** What will be sent, in words: "TICKED: a, b · EMPTY: c". */
export function showMulti(q, v) {
  const ticked = q.options.filter((o) => v[o]);
  const empty = q.options.filter((o) => !v[o]);
  const parts = [];
  if (ticked.length) parts.push(`TICKED: ${ticked.map((o) => `“${o}”`).join(", ")}`);
  if (empty.length) parts.push(`EMPTY: ${empty.map((o) => `“${o}”`).join(", ")}`);
  return parts.join(" · ");
}

/** The server's words for what a ticked (and an empty) box reveals. */
export function meaningMulti(q) {
  return q.protection.reports.yes?.text ?? "";
}

/** The summary line before sending: what is sent, how, the summed ε and what a box reveals. */
export function summaryMulti(q, v) {
  return `To be sent: ${showMulti(q, v)} — each box randomized separately on this device; your true answers are not sent. ` +
    `Privacy: ε = ${q.epsilon.toFixed(2)} (${q.options.length} options × ε = ${q.epsilon_per_option.toFixed(2)}, added up). ${meaningMulti(q)}`;
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
    li.append(`“${option}”: we will record `, strong, branches ? ` — ${whatHappened(q, { branch: branches[option], reported: reported[option] })}` : "");
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
      para("Your answers to this question were already randomized on this device, each option separately. We will record:"),
      resultList(q, stored, null),
      para("We don't flip again: several flips for the same question could be combined to reveal your true answers, so flipping again would weaken your protection."),
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
      para("Each option was decided separately, with its own draw."),
      resultList(q, outcome.reported, outcome.branches),
      para(meaningMulti(q)),
    );
    section.querySelector("[data-role=next]")?.focus();
  });
}
