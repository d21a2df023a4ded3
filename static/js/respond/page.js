/* Deniable respondent page (templates/respond/survey.html): randomized response in the browser.
 *
 * Privacy rules this page keeps (docs/privacy-model.md#local-dp, docs/formulas.md#local;
 * docs/respondent-pages.md):
 *  - the TRUE answer lives only in a local variable while the coins are flipped; it is never put
 *    in a form field with a name, a URL, storage, a log, or a request;
 *  - randomness comes from crypto.getRandomValues only (never Math.random), drawn without bias,
 *    against the server's integer thresholds (rr/randomizer.js);
 *  - the REPORTED answer is memoized in localStorage the moment it is drawn, so a reload or a
 *    revisit reuses it; blocked storage keeps the physical-coin form (rr/memo.js).
 * Module layout: respond.js (the entry: finds the page and its data, calls `mount`), this file (the
 * stepper, the summary, sending), respond/kinds/ (one module per question kind: its draw, its
 * flipper or its direct value, its words), rr/randomizer.js (the draw, pure), rr/memo.js
 * (memoized reports), respond/stage.js (coins, spinner), respond/offline.js (sending, or keeping
 * the answers on the device until it is back online), lib/http.js (requests). URLs come from
 * the page's JSON data island (`survey-data`), as every number shown does.
 *
 * Nothing here reads the page when imported: `mount(root, data)` is given the document (or a
 * test's) and the data island's content.
 */

import { DONE, SUBMISSION, StorageBlockedError, memoScope, openMemo } from "../rr/memo.js";
import { padding, uuid4 } from "./body.js";
import { fixed2, t } from "./i18n.js";
import { fragmentToken, invitationCheck, restartWith } from "./invitation.js";
import { kindOf } from "./kinds/index.js";
import { QUEUED, courier } from "./offline.js";
import { answers as skipLogic, nextShown } from "./skip.js";

const fill = (array) => crypto.getRandomValues(array); // read at each draw: Web Crypto only

/** An in-page Storage for the researcher's preview: its draws are never kept in site storage. */
function pageMemory() {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => {
      items.set(k, String(v));
    },
    removeItem: (k) => {
      items.delete(k);
    },
  };
}

/**
 * Start the respondent page. `root`: the document (anything with querySelector holding the
 * template's nodes); `data`: the `survey-data` island's content (surveys/pages/views.py). Does nothing
 * (the no-JS physical page stays) without data, the form or Web Crypto.
 */
export function mount(root, data) {
  const form = root.querySelector("#respond-form");
  if (!data || !form) return;
  if (!globalThis.crypto?.getRandomValues) return; // keep the no-JS (physical) page
  const byId = (id) => root.querySelector(`#${id}`);
  const doc = form.ownerDocument;
  const items = new Map(data.questions.map((q) => [q.key, q]));
  const steps = [...form.querySelectorAll(".step")];
  let memo = null;
  let mail = null; // the sender (respond/offline.js): sends now, or keeps the answers on the device
  let current = 0;
  let physicalMode = false;

  // ---------------------------------------------------------------- answers
  function directValue(q) {
    if (!form.elements[`q-${q.key}`]) return undefined;
    return kindOf(q).directValue(form, q);
  }
  const problem = (q) => kindOf(q).problem(form, q);
  const flips = (q) => q.randomized && typeof kindOf(q).setupFlipper === "function";
  const { shown, answerOf } = skipLogic(items, (q) => (flips(q) ? memo.reported(q) : directValue(q)));

  // The memo's draw for a flipper; null (and the physical form) when storage turns out blocked.
  function draw(q, truth) {
    try {
      return memo.draw(q, truth, fill);
    } catch (error) {
      if (error instanceof StorageBlockedError) {
        storageBlocked();
        return null;
      }
      throw error;
    }
  }

  // ---------------------------------------------------------------- stepper
  function stepError(section, message) {
    let p = section.querySelector(".js-step-error");
    if (!message) {
      if (p) p.remove();
      return;
    }
    if (!p) {
      p = doc.createElement("p");
      p.className = "field-error js-step-error";
      p.setAttribute("role", "alert");
      section.querySelector("fieldset, h2").after(p);
    }
    p.textContent = message;
  }

  function showStep(index, focus = true) {
    current = Math.max(0, Math.min(index, steps.length - 1));
    steps.forEach((s, i) => s.classList.toggle("current", i === current));
    const section = steps[current];
    // On a phone the explanation would push every later question below the fold; the summary
    // step repeats what matters before sending.
    byId("intro").hidden = current > 0;
    if (section.id === "step-summary") buildSummary();
    if (focus) {
      const target = section.querySelector(".question-text, h2");
      target.setAttribute("tabindex", "-1");
      target.focus();
    }
    window.scrollTo(0, 0);
  }

  const step = (dir) => showStep(nextShown(steps, items, shown, current, dir));

  function validateStep(section) {
    const q = items.get(section.dataset.key);
    if (!q) return true;
    const wrong = shown(q) ? problem(q) : "";
    if (wrong) {
      stepError(section, wrong);
      return false;
    }
    if (answerOf(q) !== undefined || !q.required) {
      stepError(section, "");
      return true;
    }
    stepError(section, kindOf(q).missing(q));
    return false;
  }

  function buildSummary() {
    const list = byId("summary-list");
    list.innerHTML = "";
    for (const q of data.questions) {
      if (!shown(q)) continue; // skip logic hid it: it was never asked, nothing is sent
      const li = doc.createElement("li");
      const v = answerOf(q);
      const title = doc.createElement("strong");
      title.textContent = q.text;
      li.append(title, doc.createElement("br"));
      li.append(v === undefined ? t("summary_unanswered") : kindOf(q).summary(q, v));
      li.dataset.handling = q.protection.handling;
      list.append(li);
    }
    const anyRandomized = data.questions.some((q) => q.randomized);
    byId("summary-total").textContent = anyRandomized
      ? t("summary_total", { epsilon: fixed2(data.epsilon_total) })
      : t("summary_none");
  }

  // ---------------------------------------------------------------- sending
  function token() {
    const input = byId("id_token");
    return input && input.value.trim() ? input.value.trim() : null;
  }

  function collectAnswers() {
    const answers = {};
    for (const q of data.questions) {
      const v = answerOf(q);
      const invalid = shown(q) && problem(q);
      if (!invalid && v === undefined && (!shown(q) || !q.required)) continue; // hidden or left unanswered
      if (v === undefined) {
        showStep(steps.findIndex((s) => s.dataset.key === q.key));
        validateStep(steps[current]);
        return null;
      }
      answers[q.key] = v;
    }
    return answers;
  }

  function showRefusal(errorBox, status, payload) {
    if (status === 400 && payload.errors) {
      const lines = [];
      for (const [field, messages] of Object.entries(payload.errors)) {
        const text = [].concat(messages).join(" ");
        const key = field.startsWith("answers.") ? field.slice(8) : null;
        const index = steps.findIndex((s) => s.dataset.key === key);
        if (index >= 0) stepError(steps[index], text);
        lines.push(t("field_error", { field: key ? (items.get(key)?.text ?? key) : field, errors: text }));
      }
      errorBox.textContent = t("please_check", { lines: lines.join(" · ") });
    } else {
      errorBox.textContent = payload.detail || t("server_error", { status });
    }
  }

  async function send() {
    const button = byId("send-button");
    const errorBox = byId("send-error");
    errorBox.hidden = true;
    const answers = collectAnswers();
    if (!answers) return;
    if (data.preview) {
      done(answers); // the researcher's preview: nothing is sent or stored
      return;
    }
    if (data.access === "invite" && !token()) {
      errorBox.textContent = t("enter_code");
      errorBox.hidden = false;
      return;
    }
    let submissionId = memo.get(SUBMISSION);
    if (!submissionId) {
      submissionId = uuid4();
      memo.set(SUBMISSION, submissionId);
    }
    const body = { submission_id: submissionId, randomizer: "browser", answers };
    if (token()) body.token = token();
    button.disabled = true;
    const result = await mail.submit(submissionId, JSON.stringify(body) + padding(data.questions, answers));
    if (result.state === "sent") {
      done(answers);
      return;
    }
    if (result.state === "queued") return; // "saved on this device": sent when back online
    if (result.state === "refused") showRefusal(errorBox, result.status, result.data);
    else errorBox.textContent = t("unreachable");
    errorBox.hidden = false;
    button.disabled = false;
  }

  // The thank-you lists only what was sent, and mentions unanswered questions only when there were
  // some (issue 22 item 6): the server renders every question, this removes the others.
  function thanksFor(answers) {
    const thanks = byId("thanks");
    for (const li of thanks.querySelectorAll("li[data-key]")) if (!(li.dataset.key in answers)) li.remove();
    for (const block of thanks.querySelectorAll("[data-role=sent-list]"))
      if (!block.querySelector("li")) block.remove();
    const left = data.questions.filter((q) => !(q.key in answers)).length;
    const note = byId("thanks-unanswered");
    if (note) {
      note.textContent =
        left === 0 ? "" : left === 1 ? t("thanks_unanswered_one") : t("thanks_unanswered_many", { n: left });
    }
  }

  // `entry`: a waiting submission sent later; its memo scope is the one it was answered under.
  function done(answers, entry = null) {
    thanksFor(answers);
    (memo ?? (entry && openMemo(() => window.localStorage, entry.scope)))?.set(DONE, "1");
    form.hidden = true;
    const thanks = byId("thanks");
    thanks.hidden = false;
    thanks.focus();
  }

  // Site storage is blocked: stay on (or go back to) the physical-coin form, which needs no memory
  // in the browser, and say why.
  function storageBlocked() {
    const notice = byId("storage-blocked");
    notice.hidden = false;
    if (form.classList.contains("stepper")) {
      // Storage failed after the page had started: back to the physical form, in place.
      physicalMode = true;
      for (const node of root.querySelectorAll(".js-only")) node.hidden = true;
      for (const node of root.querySelectorAll(".nojs-only")) node.hidden = false;
      for (const node of form.querySelectorAll("[data-role=physical] input")) node.disabled = false;
      form.classList.remove("stepper");
      byId("intro").hidden = false;
    }
    notice.focus();
  }

  // ---------------------------------------------------------------- start
  const checkInvitation = invitationCheck(root, data, token);

  function wireSteps() {
    const page = { memo, draw };
    for (const section of steps) {
      const q = items.get(section.dataset.key);
      if (q && flips(q)) kindOf(q).setupFlipper(section, q, page);
      // A flip, a tick or a typed number that answers the step clears its old error (issue 22
      // item 4): the red line never stays under a result. Runs after the flipper's own handler.
      const clear = () => {
        if (q && answerOf(q) !== undefined && !problem(q)) stepError(section, "");
      };
      section.addEventListener("click", clear);
      section.addEventListener("input", clear);
      section.querySelector("[data-role=next]")?.addEventListener("click", () => {
        if (validateStep(section)) step(1);
      });
      section.querySelector("[data-role=unanswered]")?.addEventListener("click", () => step(1));
      for (const b of section.querySelectorAll("[data-role=back]")) b.addEventListener("click", () => step(-1));
    }
    form.addEventListener("submit", (event) => {
      if (physicalMode) return; // the physical-coin form posts natively
      event.preventDefault(); // never a native post from the JS page (Enter in a field lands here)
      const section = steps[current];
      if (section.id === "step-summary") send();
      else if (validateStep(section)) step(1);
    });
    byId("send-button").addEventListener("click", send);
  }

  // An invite-only survey opened without a code: nothing can be drawn yet (draws are kept per
  // invitation), so the questions wait for the code.
  function waitForCode(tokenInput) {
    for (const node of root.querySelectorAll(".nojs-only")) node.hidden = true;
    form.classList.add("invite-blocked");
    byId("code-first").hidden = false;
    // Answers sent from this device that still wait carry their code: sent without asking again.
    courier({ root, data, memo: null, onSent: done }).resume();
    tokenInput.addEventListener("change", () => {
      if (token()) restartWith(token());
    });
  }

  // The token of an invitation link moves from the fragment into the form, and out of the address
  // bar and history. A code typed before this script ran (the server's page is usable first; on
  // a slow phone, or with the offline worker fetching each module, the script starts later) is
  // the respondent's latest word: it is kept over the link's, and it is the code this page starts
  // with, since its change event came before any listener. The field is autocomplete=off, so a
  // value differing from the server's can only have been typed on this page.
  const tokenInput = byId("id_token");
  const typedFirst = tokenInput !== null && tokenInput.value !== tokenInput.defaultValue;
  const linked = fragmentToken();
  if (linked !== null && tokenInput) {
    if (!typedFirst) tokenInput.value = linked;
    history.replaceState(null, "", window.location.pathname);
  }
  const code = token();
  // B's link opened in A's tab changes only the fragment: start again as B.
  window.addEventListener("hashchange", () => {
    const next = fragmentToken();
    if (next !== null && next !== code) window.location.reload();
  });
  if (data.access === "invite" && !code && !data.preview && tokenInput) {
    waitForCode(tokenInput);
    return;
  }
  // The researcher's preview keeps its draws in this page's memory only: nothing in site storage,
  // so it never stands in for a real answer from this browser.
  memo = openMemo(() => (data.preview ? pageMemory() : window.localStorage), memoScope(data, code));
  if (!memo) {
    storageBlocked(); // never fail open: coins instead
    return;
  }
  if (memo.get(DONE)) {
    form.hidden = true;
    byId("already").hidden = false;
    return;
  }
  mail = courier({ root, data, memo, onSent: done });
  for (const node of root.querySelectorAll(".nojs-only")) node.hidden = true;
  for (const node of root.querySelectorAll(".js-only")) node.hidden = false;
  // The physical-coin radios are never sent from this page: disable them outright.
  for (const node of form.querySelectorAll("[data-role=physical] input")) node.disabled = true;
  form.classList.add("stepper");
  wireSteps();
  // A different code is a different respondent: start again under its invitation.
  tokenInput?.addEventListener("change", () => {
    if (token() && token() !== code) restartWith(token());
    else checkInvitation();
  });
  showStep(0, false);
  if (memo.get(QUEUED)) form.hidden = true; // answers already wait on this device: say so at once
  mail.resume();
  checkInvitation();
}
