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
 * Module layout: rr/randomizer.js (the draw, pure), rr/memo.js (memoized reports),
 * respond/stage.js (coins, spinner, words), lib/http.js (requests). URLs come from the page's
 * JSON data island (`survey-data`), as every number shown does.
 */

import { request } from "./lib/http.js";
import { DONE, SUBMISSION, StorageBlockedError, drawnView, memoScope, openMemo } from "./rr/memo.js";
import { padding, uuid4 } from "./respond/body.js";
import { animate, isShown, visual, whatHappened } from "./respond/stage.js";
import { fixed2, t, tParts } from "./respond/i18n.js";
import { answers as skipLogic, nextShown } from "./respond/skip.js";
import { meaningMulti, setupMultiFlipper, showMulti, summaryMulti } from "./respond/multi.js";

const dataNode = document.getElementById("survey-data");
const form = document.getElementById("respond-form");
const data = dataNode && form ? JSON.parse(dataNode.textContent) : null;
const items = new Map((data?.questions ?? []).map((q) => [q.key, q]));
const steps = form ? [...form.querySelectorAll(".step")] : [];
const fill = (array) => crypto.getRandomValues(array); // read at each draw: Web Crypto only
let memo = null;
let current = 0;
let physicalMode = false;

// ---------------------------------------------------------------- words
// The crosswise model (docs/formulas.md#crosswise) has no randomizer: the respondent ticks SAME or DIFFERENT
// in the same radios the no-JavaScript page posts; the reported boolean is `same`.
const isCrosswise = (q) => q.kind === "yes_no" && q.design?.name === "crosswise";
const bare = (v) => (v !== null && typeof v === "object" ? v.report : v); // cheater: {group, report}
const show = (q, v) => (q.kind === "multi" ? showMulti(q, v) : isCrosswise(q) ? t(v ? "same" : "different") : q.kind === "yes_no" ? t(bare(v) ? "yes" : "no") : t("quoted", { label: q.labels?.[v] ?? v }));
const reportKey = (q, v) => (q.kind === "yes_no" ? (bare(v) ? "yes" : "no") : v);
const meaning = (q, reported) => (q.kind === "multi" ? meaningMulti(q) : q.protection.reports[reportKey(q, reported)]?.text ?? "");

function para(...parts) {
  const p = document.createElement("p");
  for (const part of parts) p.append(part);
  return p;
}
function strong(text) {
  const s = document.createElement("strong");
  s.className = "reported";
  s.textContent = text;
  return s;
}

// ---------------------------------------------------------------- one randomized question
function setupFlipper(section, q) {
  if (q.kind === "multi") { setupMultiFlipper(section, q, { memo, fill, onBlocked: storageBlocked }); return; }
  const flipper = section.querySelector("[data-role=flipper]");
  const pick = flipper.querySelector("[data-role=pick]");
  const flipButton = flipper.querySelector("[data-role=flip]");
  const stage = flipper.querySelector("[data-role=stage]");
  const skip = flipper.querySelector("[data-role=skip]");
  const result = flipper.querySelector("[data-role=result]");
  const truthButtons = [...flipper.querySelectorAll("[data-truth]")];
  let truth; // the true answer: this closure variable is the only place it ever lives

  const stored = memo.reported(q);
  if (stored !== undefined) {
    pick.hidden = true;
    leaveOut(section);
    result.innerHTML = "";
    result.append(
      para(...tParts("already_randomized", { report: strong(show(q, stored)) })),
      para(t("no_second_flip")),
      para(meaning(q, stored)),
    );
    return;
  }

  for (const button of truthButtons) {
    button.addEventListener("click", () => {
      for (const b of truthButtons) b.setAttribute("aria-pressed", String(b === button));
      const raw = button.dataset.truth;
      truth = q.kind === "yes_no" ? raw === "true" : raw;
      flipButton.disabled = false;
    });
  }

  flipButton.addEventListener("click", () => {
    if (truth === undefined) return;
    let outcome;
    try {
      // Memoized BEFORE anything is shown, so a reload mid-animation cannot draw a second time;
      // a draw that cannot be kept is never shown (it would be a fresh flip on every reload).
      outcome = memo.draw(q, truth, fill);
    } catch (error) {
      if (error instanceof StorageBlockedError) { storageBlocked(); return; }
      throw error;
    }
    if (!outcome.fresh) return; // already randomized (another tab): never flip again
    leaveOut(section); // a randomized report is sent: it can no longer be left unanswered
    // Forget the truth: reset the buttons and the variable, nothing on the page keeps it.
    truth = undefined;
    for (const b of truthButtons) b.setAttribute("aria-pressed", "false");
    // Focus never falls back to the page: the skip button (or Next) takes it before the truth
    // buttons disappear.
    const next = section.querySelector("[data-role=next]");
    const running = animate(stage, skip, outcome, drawnView(q, outcome), next);
    pick.hidden = true;
    running.then(() => {
      result.innerHTML = "";
      const what = `${outcome.group ? `${t("group", { n: outcome.group })} ` : ""}${whatHappened(drawnView(q, outcome), outcome)}`;
      result.append(
        para(...tParts("will_record", { what, report: strong(show(q, outcome.reported)) })),
        para(t("stays_here")),
        para(meaning(q, outcome.reported)),
      );
      if (document.activeElement === document.body || !isShown(document.activeElement)) next.focus();
    });
  });
}

// An optional randomized question offers "Leave this question unanswered" until its coins are
// flipped; after that the report is kept (and sent), so the offer goes.
function leaveOut(section) {
  const box = section.querySelector("[data-role=leave-out]");
  if (box) box.hidden = true;
}

// ---------------------------------------------------------------- stepper
function stepError(section, message) {
  let p = section.querySelector(".js-step-error");
  if (!message) { if (p) p.remove(); return; }
  if (!p) {
    p = document.createElement("p");
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
  document.getElementById("intro").hidden = current > 0;
  if (section.id === "step-summary") buildSummary();
  if (focus) {
    const target = section.querySelector(".question-text, h2");
    target.setAttribute("tabindex", "-1");
    target.focus();
  }
  window.scrollTo(0, 0);
}

function directValue(q) {
  const inputs = form.elements[`q-${q.key}`];
  if (!inputs) return undefined;
  if (isCrosswise(q)) {
    const checked = form.querySelector(`input[name="q-${CSS.escape(q.key)}"]:checked`);
    return checked ? checked.value.trim() === "same" : undefined; // values are space-padded
  }
  if (q.kind === "category") {
    const checked = form.querySelector(`input[name="q-${CSS.escape(q.key)}"]:checked`);
    return checked ? checked.value : undefined;
  }
  if (inputs.value === "" || numberProblem(q)) return undefined;
  return Number(inputs.value);
}

// A number typed but not acceptable (out of range, a fraction where whole numbers are asked, or
// not a number at all) is an error on every question, optional ones too: never dropped as if the
// question had been left unanswered (issue 22 item 1). The words name the rule broken.
function numberProblem(q) {
  if (q.kind !== "number") return "";
  const input = form.elements[`q-${q.key}`];
  if (!input || (input.value === "" && !input.validity.badInput)) return "";
  const x = Number(input.value);
  const ok = !input.validity.badInput && Number.isFinite(x) && (q.min == null || x >= q.min) &&
    (q.max == null || x <= q.max) && (!q.integer || Number.isInteger(x));
  if (ok) return "";
  if (q.min == null || q.max == null) return t("number");
  return t(q.integer ? "whole_number_between" : "number_between", { min: q.min, max: q.max });
}

const { shown, answerOf } = skipLogic(items, (q) => (q.randomized && !isCrosswise(q) ? memo.reported(q) : directValue(q)));
const step = (dir) => showStep(nextShown(steps, items, shown, current, dir));

function validateStep(section) {
  const q = items.get(section.dataset.key);
  if (!q) return true;
  const problem = shown(q) ? numberProblem(q) : "";
  if (problem) { stepError(section, problem); return false; }
  if (answerOf(q) !== undefined || !q.required) { stepError(section, ""); return true; }
  stepError(section, isCrosswise(q) ? t("tick_same_different") : q.kind === "multi" ? t("tick_then_press", { button: visual(q).button }) : q.randomized ? t("tap_then_press", { button: visual(q).button }) :
    q.kind === "number" ? (q.min != null && q.max != null ? t(q.integer ? "whole_number_between" : "number_between", { min: q.min, max: q.max }) : t("number")) : t("choose"));
  return false;
}

function buildSummary() {
  const list = document.getElementById("summary-list");
  list.innerHTML = "";
  for (const q of data.questions) {
    if (!shown(q)) continue; // skip logic hid it: it was never asked, nothing is sent
    const li = document.createElement("li");
    const v = answerOf(q);
    const title = document.createElement("strong");
    title.textContent = q.text;
    li.append(title, document.createElement("br"));
    if (v === undefined) {
      li.append(t("summary_unanswered"));
    } else if (q.randomized) {
      li.append(q.kind === "multi" ? summaryMulti(q, v) : t(isCrosswise(q) ? "summary_paired" : "summary_randomized", { report: show(q, v), epsilon: fixed2(q.epsilon), meaning: meaning(q, v) }));
    } else {
      li.append(t("summary_direct", { value: q.kind === "category" ? q.labels?.[v] ?? v : v, handling: q.protection.handling_text }));
    }
    li.dataset.handling = q.protection.handling;
    list.append(li);
  }
  const anyRandomized = data.questions.some((q) => q.randomized);
  document.getElementById("summary-total").textContent = anyRandomized ?
    t("summary_total", { epsilon: fixed2(data.epsilon_total) }) : t("summary_none");
}

// ---------------------------------------------------------------- sending
function token() {
  const input = document.getElementById("id_token");
  return input && input.value.trim() ? input.value.trim() : null;
}

function collectAnswers() {
  const answers = {};
  for (const q of data.questions) {
    const v = answerOf(q);
    const invalid = shown(q) && numberProblem(q);
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
      lines.push(t("field_error", { field: key ? items.get(key)?.text ?? key : field, errors: text }));
    }
    errorBox.textContent = t("please_check", { lines: lines.join(" · ") });
  } else {
    errorBox.textContent = payload.detail || t("server_error", { status });
  }
}

async function send() {
  const button = document.getElementById("send-button");
  const errorBox = document.getElementById("send-error");
  errorBox.hidden = true;
  const answers = collectAnswers();
  if (!answers) return;
  if (data.preview) { done(answers); return; } // the researcher's preview: nothing is sent or stored
  if (data.access === "invite" && !token()) {
    errorBox.textContent = t("enter_code");
    errorBox.hidden = false;
    return;
  }
  let submissionId = memo.get(SUBMISSION);
  if (!submissionId) { submissionId = uuid4(); memo.set(SUBMISSION, submissionId); }
  const body = { submission_id: submissionId, randomizer: "browser", answers };
  if (token()) body.token = token();
  button.disabled = true;
  try {
    const { ok, status, data: payload } = await request(data.api_url, {
      method: "POST",
      text: JSON.stringify(body) + padding(data.questions, answers),
    });
    if (ok) { done(answers); return; }
    showRefusal(errorBox, status, payload);
  } catch {
    errorBox.textContent = t("unreachable");
  }
  errorBox.hidden = false;
  button.disabled = false;
}

// ---------------------------------------------------------------- invitation check
// Asked as soon as the page opens (and when the code changes), so a used or unknown invitation
// is refused before anything is answered. The token travels in the body only; the check does
// not use it up. If the check cannot be made, the server still refuses on submit.
let checkSeq = 0;
async function checkInvitation() {
  if (data.access !== "invite" || !data.invitation_check_url) return;
  const t = token();
  const seq = ++checkSeq;
  if (!t) { setInvitation(null); return; }
  try {
    const { ok, data: payload } = await request(data.invitation_check_url, {
      method: "POST",
      json: { token: t },
      credentials: "omit",
    });
    if (!ok || seq !== checkSeq) return;
    setInvitation(payload.valid === true);
  } catch { /* offline: the submit decides */ }
}

function setInvitation(valid) {
  const refused = valid === false;
  const box = document.getElementById("invite-refused");
  const wasRefused = !box.hidden;
  box.hidden = !refused;
  form.classList.toggle("invite-blocked", refused);
  const input = document.getElementById("id_token");
  if (input) {
    if (refused) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  }
  if (refused && !wasRefused && document.activeElement !== input) box.focus();
}

// The thank-you lists only what was sent, and mentions unanswered questions only when there were
// some (issue 22 item 6): the server renders every question, this removes the others.
function thanksFor(answers) {
  const thanks = document.getElementById("thanks");
  for (const li of thanks.querySelectorAll("li[data-key]")) if (!(li.dataset.key in answers)) li.remove();
  for (const block of thanks.querySelectorAll("[data-role=sent-list]")) if (!block.querySelector("li")) block.remove();
  const left = data.questions.filter((q) => !(q.key in answers)).length;
  const note = document.getElementById("thanks-unanswered");
  if (note) note.textContent = left === 0 ? "" : left === 1 ? t("thanks_unanswered_one") : t("thanks_unanswered_many", { n: left });
}

function done(answers) {
  thanksFor(answers);
  memo.set(DONE, "1");
  form.hidden = true;
  const thanks = document.getElementById("thanks");
  thanks.hidden = false;
  thanks.focus();
}

// Site storage is blocked: stay on (or go back to) the physical-coin form, which needs no memory
// in the browser, and say why.
function storageBlocked() {
  const notice = document.getElementById("storage-blocked");
  notice.hidden = false;
  if (form.classList.contains("stepper")) {
    // Storage failed after the page had started: back to the physical form, in place.
    physicalMode = true;
    for (const node of document.querySelectorAll(".js-only")) node.hidden = true;
    for (const node of document.querySelectorAll(".nojs-only")) node.hidden = false;
    for (const node of form.querySelectorAll("[data-role=physical] input")) node.disabled = false;
    form.classList.remove("stepper");
    document.getElementById("intro").hidden = false;
  }
  notice.focus();
}

// ---------------------------------------------------------------- start
// Invitation tokens come in the URL fragment (#t=...), which browsers never send to the server;
// move it into the form and drop it from the address bar and history.
function takeTokenFromFragment(tokenInput) {
  const match = /(?:^#|&)t=([^&]+)/.exec(window.location.hash);
  if (match && tokenInput) {
    tokenInput.value = decodeURIComponent(match[1]);
    history.replaceState(null, "", window.location.pathname);
  }
}

function wireSteps() {
  for (const section of steps) {
    const q = items.get(section.dataset.key);
    if (q && q.randomized && !isCrosswise(q)) setupFlipper(section, q);
    // A flip, a tick or a typed number that answers the step clears its old error (issue 22
    // item 4): the red line never stays under a result. Runs after the flipper's own handler.
    const clear = () => { if (q && answerOf(q) !== undefined && !numberProblem(q)) stepError(section, ""); };
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
  document.getElementById("send-button").addEventListener("click", send);
}

function pageMemory() {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => { items.set(k, String(v)); },
    removeItem: (k) => { items.delete(k); },
  };
}

// Another invitation is a new respondent (issue 21 item 8): the page starts again with the new
// code in the fragment (#t=…, never sent), so its memo is that invitation's.
function restartWith(code) {
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}#t=${encodeURIComponent(code)}`);
  window.location.reload();
}

// An invite-only survey opened without a code: nothing can be drawn yet (draws are kept per
// invitation), so the questions wait for the code.
function waitForCode(tokenInput) {
  for (const node of document.querySelectorAll(".nojs-only")) node.hidden = true;
  form.classList.add("invite-blocked");
  document.getElementById("code-first").hidden = false;
  tokenInput.addEventListener("change", () => { if (token()) restartWith(token()); });
}

function start() {
  if (!data) return;
  if (!globalThis.crypto?.getRandomValues) return; // keep the no-JS (physical) page
  const tokenInput = document.getElementById("id_token");
  takeTokenFromFragment(tokenInput);
  const code = token();
  // B's link opened in A's tab changes only the fragment: start again as B.
  window.addEventListener("hashchange", () => {
    const match = /(?:^#|&)t=([^&]+)/.exec(window.location.hash);
    if (match && decodeURIComponent(match[1]) !== code) window.location.reload();
  });
  if (data.access === "invite" && !code && !data.preview && tokenInput) { waitForCode(tokenInput); return; }
  // The researcher's preview keeps its draws in this page's memory only: nothing in site storage,
  // so it never stands in for a real answer from this browser.
  memo = openMemo(() => (data.preview ? pageMemory() : window.localStorage), memoScope(data, code));
  if (!memo) { storageBlocked(); return; } // never fail open: coins instead
  if (memo.get(DONE)) {
    form.hidden = true;
    document.getElementById("already").hidden = false;
    return;
  }
  for (const node of document.querySelectorAll(".nojs-only")) node.hidden = true;
  for (const node of document.querySelectorAll(".js-only")) node.hidden = false;
  // The physical-coin radios are never sent from this page: disable them outright.
  for (const node of form.querySelectorAll("[data-role=physical] input")) node.disabled = true;
  form.classList.add("stepper");
  wireSteps();
  // A different code is a different respondent: start again under its invitation.
  tokenInput?.addEventListener("change", () => { if (token() && token() !== code) restartWith(token()); else checkInvitation(); });
  showStep(0, false);
  checkInvitation();
}

start();
