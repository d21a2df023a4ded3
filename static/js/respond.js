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
import { DONE, SUBMISSION, StorageBlockedError, drawnView, openMemo, possibleReports } from "./rr/memo.js";
import { animate, isShown, visual, whatHappened } from "./respond/stage.js";
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
const show = (q, v) => (q.kind === "multi" ? showMulti(q, v) : isCrosswise(q) ? (v ? "SAME" : "DIFFERENT") : q.kind === "yes_no" ? (bare(v) ? "YES" : "NO") : `“${v}”`);
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
    result.innerHTML = "";
    result.append(
      para("Your answer to this question was already randomized on this device. We will record ", strong(show(q, stored)), "."),
      para("We don't flip again: several flips for the same question could be combined to reveal your true answer, so flipping again would weaken your protection."),
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
      result.append(
        para(`${outcome.group ? `Group ${outcome.group}. ` : ""}${whatHappened(drawnView(q, outcome), outcome)} We will record `, strong(show(q, outcome.reported)), "."),
        para(meaning(q, outcome.reported)),
      );
      if (document.activeElement === document.body || !isShown(document.activeElement)) next.focus();
    });
  });
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
  if (inputs.value === "" || !inputs.checkValidity()) return undefined;
  return Number(inputs.value);
}

const answerOf = (q) => (q.randomized && !isCrosswise(q) ? memo.reported(q) : directValue(q));

function validateStep(section) {
  const q = items.get(section.dataset.key);
  if (!q) return true;
  if (answerOf(q) !== undefined) { stepError(section, ""); return true; }
  stepError(section, isCrosswise(q) ? "Tick SAME or DIFFERENT." : q.kind === "multi" ? `Tick what is true for you (or nothing), then press “${visual(q).button}”.` : q.randomized ? `Tap your true answer, then press “${visual(q).button}”.` :
    q.kind === "number" ? `Enter a number${q.min != null && q.max != null ? ` from ${q.min} to ${q.max}` : ""}.` : "Choose an answer.");
  return false;
}

function buildSummary() {
  const list = document.getElementById("summary-list");
  list.innerHTML = "";
  for (const q of data.questions) {
    const li = document.createElement("li");
    const v = answerOf(q);
    const title = document.createElement("strong");
    title.textContent = q.text;
    li.append(title, document.createElement("br"));
    if (isCrosswise(q)) {
      li.append(`To be sent: ${show(q, v)} — only whether your two answers agree. Privacy: ε = ${q.epsilon.toFixed(2)}. ${meaning(q, v)}`);
    } else if (q.randomized) {
      li.append(q.kind === "multi" ? summaryMulti(q, v) : `To be sent: ${show(q, v)} — randomized on this device; your true answer is not sent. Privacy: ε = ${q.epsilon.toFixed(2)}. ${meaning(q, v)}`);
    } else {
      li.append(`To be sent: ${v}. ${q.protection.handling_text}`);
    }
    li.dataset.handling = q.protection.handling;
    list.append(li);
  }
  const anyRandomized = data.questions.some((q) => q.randomized);
  document.getElementById("summary-total").textContent = anyRandomized ?
    `Your total privacy loss for this survey is ε = ${Number(data.epsilon_total).toFixed(2)} ` +
    "(the sum over the randomized questions; smaller is more private). Only the answers above are sent." :
    "None of these answers is randomized: they are sent exactly as shown above.";
}

// ---------------------------------------------------------------- sending
function token() {
  const input = document.getElementById("id_token");
  return input && input.value.trim() ? input.value.trim() : null;
}

// Fixed-length bodies (issue 11 item 5): a network observer sees each request's size, so every
// possible report of a randomized question must give the same number of bytes. JSON allows
// whitespace after the value: pad with spaces up to the longest report of each such question.
// (Direct answers are sent as given, so their length is not hidden.)
const utf8 = new TextEncoder();
const jsonBytes = (v) => utf8.encode(JSON.stringify(v)).length;
function padding(answers) {
  let pad = 0;
  for (const q of data.questions) {
    if (!q.randomized) continue;
    const reports = possibleReports(q);
    pad += Math.max(...reports.map(jsonBytes)) - jsonBytes(answers[q.key]);
  }
  return " ".repeat(pad);
}

// A version-4 UUID naming this submission (a retry after a network failure reuses it, so the
// server stores it once). randomUUID needs a secure context; elsewhere, 16 random bytes.
function uuid4() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function collectAnswers() {
  const answers = {};
  for (const q of data.questions) {
    const v = answerOf(q);
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
      lines.push(`${key ? items.get(key)?.text ?? key : field}: ${text}`);
    }
    errorBox.textContent = `Please check: ${lines.join(" · ")}`;
  } else {
    errorBox.textContent = payload.detail || `The server could not take your answers (error ${status}).`;
  }
}

async function send() {
  const button = document.getElementById("send-button");
  const errorBox = document.getElementById("send-error");
  errorBox.hidden = true;
  const answers = collectAnswers();
  if (!answers) return;
  if (data.access === "invite" && !token()) {
    errorBox.textContent = "Enter your invitation code at the top of the page.";
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
      text: JSON.stringify(body) + padding(answers),
    });
    if (ok) { done(); return; }
    showRefusal(errorBox, status, payload);
  } catch {
    errorBox.textContent = "We could not reach the server. Your randomized answers are kept on this device; please try again.";
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

function done() {
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
    section.querySelector("[data-role=next]")?.addEventListener("click", () => {
      if (validateStep(section)) showStep(current + 1);
    });
    for (const b of section.querySelectorAll("[data-role=back]")) b.addEventListener("click", () => showStep(current - 1));
  }
  form.addEventListener("submit", (event) => {
    if (physicalMode) return; // the physical-coin form posts natively
    event.preventDefault(); // never a native post from the JS page (Enter in a field lands here)
    const section = steps[current];
    if (section.id === "step-summary") send();
    else if (validateStep(section)) showStep(current + 1);
  });
  document.getElementById("send-button").addEventListener("click", send);
}

function start() {
  if (!data) return;
  if (!globalThis.crypto?.getRandomValues) return; // keep the no-JS (physical) page
  memo = openMemo(() => window.localStorage, data.slug);
  if (!memo) { storageBlocked(); return; } // never fail open: coins instead
  if (memo.get(DONE)) {
    form.hidden = true;
    document.getElementById("already").hidden = false;
    return;
  }
  const tokenInput = document.getElementById("id_token");
  takeTokenFromFragment(tokenInput);
  for (const node of document.querySelectorAll(".nojs-only")) node.hidden = true;
  for (const node of document.querySelectorAll(".js-only")) node.hidden = false;
  // The physical-coin radios are never sent from this page: disable them outright.
  for (const node of form.querySelectorAll("[data-role=physical] input")) node.disabled = true;
  form.classList.add("stepper");
  wireSteps();
  tokenInput?.addEventListener("change", checkInvitation);
  showStep(0, false);
  checkInvitation();
}

start();
