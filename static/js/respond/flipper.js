/* One randomized question's flipper on the respondent page: the true answer is tapped, then one
 * press draws the report (through the page's memo: stored before anything is shown), animates
 * the coins or the spinner, and says what will be recorded. The kinds with one true answer
 * (yes/no, choice, cheating detection) use it with their own words (respond/kinds/). */

import { t, tParts } from "./i18n.js";
import { animate, isShown, whatHappened } from "./stage.js";

export function para(...parts) {
  const p = document.createElement("p");
  for (const part of parts) p.append(part);
  return p;
}

export function strong(text) {
  const s = document.createElement("strong");
  s.className = "reported";
  s.textContent = text;
  return s;
}

/** An optional randomized question offers "Leave this question unanswered" until its coins are
 * flipped; after that the report is kept (and sent), so the offer goes. */
export function leaveOut(section) {
  const box = section.querySelector("[data-role=leave-out]");
  if (box) box.hidden = true;
}

/**
 * Wire the flipper of `section` for question `q`. `kind`: the question's words and truth reader
 * (`show`, `meaning`, `truthOf`, `drawnView`); `page`: `memo` (the page's Memo) and `draw(q, truth)`,
 * the memo's draw that answers null when storage is blocked (the page has then fallen back to
 * the physical form).
 */
export function setupFlipper(section, q, kind, page) {
  const flipper = section.querySelector("[data-role=flipper]");
  const pick = flipper.querySelector("[data-role=pick]");
  const flipButton = flipper.querySelector("[data-role=flip]");
  const stage = flipper.querySelector("[data-role=stage]");
  const skip = flipper.querySelector("[data-role=skip]");
  const result = flipper.querySelector("[data-role=result]");
  const truthButtons = [...flipper.querySelectorAll("[data-truth]")];
  let truth; // the true answer: this closure variable is the only place it ever lives

  const stored = page.memo.reported(q);
  if (stored !== undefined) {
    pick.hidden = true;
    leaveOut(section);
    result.innerHTML = "";
    result.append(
      para(...tParts("already_randomized", { report: strong(kind.show(q, stored)) })),
      para(t("no_second_flip")),
      para(kind.meaning(q, stored)),
    );
    return;
  }

  for (const button of truthButtons) {
    button.addEventListener("click", () => {
      for (const b of truthButtons) b.setAttribute("aria-pressed", String(b === button));
      truth = kind.truthOf(button.dataset.truth);
      flipButton.disabled = false;
    });
  }

  flipButton.addEventListener("click", () => {
    if (truth === undefined) return;
    // Memoized BEFORE anything is shown, so a reload mid-animation cannot draw a second time;
    // a draw that cannot be kept is never shown (it would be a fresh flip on every reload).
    const outcome = page.draw(q, truth);
    if (!outcome || !outcome.fresh) return; // storage blocked, or already randomized (another tab)
    leaveOut(section); // a randomized report is sent: it can no longer be left unanswered
    // Forget the truth: reset the buttons and the variable, nothing on the page keeps it.
    truth = undefined;
    for (const b of truthButtons) b.setAttribute("aria-pressed", "false");
    // Focus never falls back to the page: the skip button (or Next) takes it before the truth
    // buttons disappear.
    const next = section.querySelector("[data-role=next]");
    const view = kind.drawnView(q, outcome);
    const running = animate(stage, skip, outcome, view, next);
    pick.hidden = true;
    running.then(() => {
      result.innerHTML = "";
      const group = outcome.group ? `${t("group", { n: outcome.group })} ` : "";
      const what = `${group}${whatHappened(view, outcome)}`;
      result.append(
        para(...tParts("will_record", { what, report: strong(kind.show(q, outcome.reported)) })),
        para(t("stays_here")),
        para(kind.meaning(q, outcome.reported)),
      );
      const active = section.ownerDocument.activeElement;
      if (active === section.ownerDocument.body || !isShown(active)) next.focus();
    });
  });
}
