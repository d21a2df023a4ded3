/* Survey builder: questions, designs, and a live preview of ε, deniability and precision.
 * The DOM is the single source of truth; saving serializes it to the JSON API body
 * (docs/api.md#surveys), and server errors come back keyed by field path
 * ("questions[2].design.p") and are shown there.
 * An ES module (static/js/lib/http.js does the requests, with the CSRF header from the cookie);
 * URLs and starting values come from the `builder-data` island the server renders.
 */

import { send } from "./lib/http.js";
import { setupTranslations } from "./builder/translations.js";
import { fillLogic, logicValue, refreshShowIf } from "./builder/logic.js";
import { setupInnocuousPick } from "./builder/innocuous.js";
import { deniabilitySentence } from "./builder/crosswise.js";
import { mount as mountRecommend } from "./builder/recommend.js";
import { builderErrors } from "./builder/errors.js";

const data = JSON.parse(document.getElementById("builder-data").textContent);
const form = document.getElementById("builder");
const list = document.getElementById("questions");
const template = document.getElementById("question-template");
let uid = 0;

// Every design's starting values come from the server (surveys.definitions.question_designs.starting_designs): the
// page has no copy of any probability or ε.
const DEFAULT_DESIGNS = data.starting_designs;
// Each design's parameters (name, type, groups' fields) come from the server's design registry
// (surveys.definitions.question_designs.builder_designs): the page has no copy of any parameter name.
const DESIGNS = Object.fromEntries(data.designs.map((d) => [d.name, d]));
const firstDesign = (kind) => data.designs.find((d) => d.kinds.includes(kind)).name;
// What each kind's card offers (surveys.pages.researcher.builder_kinds): the page branches on
// these, never on a kind's name.
const KINDS = data.kinds;
const kindOf = (kind) => KINDS[kind] || {};
// The kind whose designs the design select lists (every yes/no design), and a new card's kind.
const SELECT_KIND = data.default_kind;
const GROUP = (p, i, k) => `design.${p}[${i}].${k}`; // a grouped design's fields: the server's error paths

// ---------------------------------------------------------------- helpers
const field = (root, path) => root.querySelector(`[data-path="${path}"]`);
const num = (el) => (el.value.trim() === "" ? null : Number(el.value));
function debounce(fn, ms) {
  let t = null;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
// lib/http.js answers {ok, status, data}; here the answer body is called `payload` (`data` is
// the page's data island).
async function postJSON(url, body, method = "POST") {
  const { ok, status, data: payload } = await send(url, body, method);
  return { ok, status, payload };
}

// ---------------------------------------------------------------- one question card
function cardValue(card) {
  const kind = field(card, "kind").value;
  const q = { key: field(card, "key").value.trim(), text: field(card, "text").value.trim(), kind };
  if (kindOf(kind).options) {
    q.options = field(card, "options")
      .value.split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (kindOf(kind).bounds) {
    q.min = num(field(card, "min"));
    q.max = num(field(card, "max"));
    q.integer = field(card, "integer").checked;
  }
  // multi: one yes/no design shared by its options; choice: the one design its shape has
  if (kindOf(kind).design === "select") q.design = designValue(card, field(card, "design.name").value);
  if (kindOf(kind).design === "fixed")
    q.design = designValue(card, field(card, "options_design")?.value || firstDesign(kind));
  return Object.assign(q, logicValue(card, kindOf(kind))); // required, ordered, show_if
}

// A design's spec from its parameters' fields, in the registry's order.
function designValue(card, name) {
  const design = { name };
  for (const p of DESIGNS[name]?.params || []) {
    if (p.type === "groups") {
      design[p.name] = [...Array(p.count).keys()].map((i) =>
        Object.fromEntries(p.fields.map((f) => [f.name, num(field(card, GROUP(p.name, i, f.name)))])),
      );
    } else if (p.type === "text") design[p.name] = field(card, `design.${p.name}`).value.trim();
    else design[p.name] = num(field(card, `design.${p.name}`));
  }
  return design;
}

function fillCard(card, q) {
  field(card, "key").value = q.key || "";
  field(card, "text").value = q.text || "";
  field(card, "kind").value = q.kind || SELECT_KIND;
  field(card, "options").value = (q.options || []).join("\n");
  field(card, "min").value = q.min ?? "";
  field(card, "max").value = q.max ?? "";
  field(card, "integer").checked = q.integer === true;
  const yn = kindOf(q.kind).design === "select" && q.design ? q.design : DEFAULT_DESIGNS[firstDesign(SELECT_KIND)];
  field(card, "design.name").value = yn.name;
  // Defaults for every design's parameters first (the registry's first designs last, so they win
  // a shared field), then the question's own values on top.
  const yesNo = data.designs.filter((d) => d.kinds.includes(SELECT_KIND)).reverse();
  const values = Object.assign({}, ...yesNo.map((d) => DEFAULT_DESIGNS[d.name]), DEFAULT_DESIGNS[yn.name], yn);
  for (const [k, v] of Object.entries(values)) {
    const el = field(card, `design.${k}`);
    if (el && k !== "name") el.value = v;
  }
  for (const d of yesNo) {
    for (const p of d.params.filter((x) => x.type === "groups")) {
      const groups = (yn.name === d.name && yn[p.name]) || DEFAULT_DESIGNS[d.name][p.name];
      groups.forEach((g, i) => {
        for (const f of p.fields) field(card, GROUP(p.name, i, f.name)).value = g[f.name];
      });
    }
  }
  const fixedKind = Object.keys(KINDS).find((k) => KINDS[k].design === "fixed");
  const choice = firstDesign(fixedKind);
  const krr = q.kind === fixedKind && q.design ? q.design : DEFAULT_DESIGNS[choice];
  for (const p of DESIGNS[choice].params) field(card, `design.${p.name}`).value = Number(krr[p.name]).toFixed(4);
  // The options' design picker (k-RR, OUE: every one of them takes ε alone).
  const pick = field(card, "options_design");
  if (pick) pick.value = DESIGNS[krr.name] ? krr.name : choice;
  fillLogic(card, q);
}

function syncVisibility(card) {
  const kind = field(card, "kind").value;
  const designName = field(card, "design.name").value;
  for (const el of card.querySelectorAll("[data-show]")) el.hidden = !el.dataset.show.split(" ").includes(kind);
  for (const el of card.querySelectorAll("[data-design]"))
    el.hidden = !el.dataset.design.split(" ").includes(designName);
  // A multi question offers only the designs the server accepts for it (each design's `kinds`).
  const select = field(card, "design.name");
  for (const o of select.options)
    o.disabled = o.hidden = kindOf(kind).design === "select" && !DESIGNS[o.value]?.kinds.includes(kind);
  if (select.selectedOptions[0]?.disabled) {
    select.value = firstDesign(kind);
    syncVisibility(card);
  }
}

function renumber() {
  [...list.children].forEach((card, i) => {
    card.querySelector("[data-role=legend]").textContent = `Question ${i + 1}`;
    card.querySelector("[data-action=up]").disabled = i === 0;
    card.querySelector("[data-action=down]").disabled = i === list.children.length - 1;
  });
  refreshShowIf(list, KINDS);
  updateTotal();
}

const previews = new WeakMap(); // card → last preview ε (for the respondent total)

function updateTotal() {
  let total = 0;
  let unknown = false;
  for (const card of list.children) {
    const kind = field(card, "kind").value;
    if (!kindOf(kind).randomized) continue;
    const eps = previews.get(card);
    // A preview's ε is a JSON number, or null for a design that is not private.
    if (Number.isFinite(eps)) total += eps;
    else unknown = true;
  }
  document.getElementById("total-epsilon").textContent =
    `Each respondent's total local ε: ${total.toFixed(3)}${unknown ? " (some questions still need a valid design)" : ""}.`;
}

const pp = (x) => `±${(100 * x).toFixed(1)} pp`;

async function preview(card) {
  const box = card.querySelector("[data-role=preview]");
  const q = cardValue(card);
  if (!kindOf(q.kind).randomized) {
    previews.delete(card);
    updateTotal();
    return;
  }
  const body = { kind: q.kind, design: q.design, planned_n: num(document.getElementById("b-planned")) || 1000 };
  if (kindOf(q.kind).randomized && kindOf(q.kind).options) body.options = q.options;
  box.textContent = "Calculating…";
  card.dispatchEvent(new CustomEvent("deniable:preview-cleared", { bubbles: true })); // until it is back
  // Only the card's latest request may speak: an older answer arriving late would otherwise show
  // (and hand power.js and the chooser) the ε of a design the researcher has already changed.
  const ticket = (card.previewTicket || 0) + 1;
  card.previewTicket = ticket;
  try {
    const { ok, payload } = await postJSON(data.preview_url, body);
    if (card.previewTicket !== ticket) return;
    clearCardErrors(card, "preview");
    if (!ok) {
      previews.delete(card);
      // The problem is shown once, next to the field it concerns (not repeated in this box).
      const unplaced = placeErrors(
        payload.errors || { design: [payload.detail || "Invalid design."] },
        card,
        "preview",
      );
      box.textContent = unplaced.length
        ? `No preview: ${unplaced.map((e) => e.short).join(" ")}`
        : "No preview until the design above is fixed.";
      // No power for a design that has no preview (power.js clears its line on this event).
      card.lastPreview = null;
      card.dispatchEvent(new CustomEvent("deniable:preview-cleared", { bubbles: true }));
    } else {
      previews.set(card, payload.private ? payload.epsilon : null);
      const sum =
        payload.epsilon_per_option != null
          ? ` (${payload.options} options × ${payload.epsilon_per_option.toFixed(3)}, added up; precision is per option)`
          : "";
      const parts = [
        payload.private
          ? `Local ε = ${Number(payload.epsilon).toFixed(3)}${sum}.`
          : "Not differentially private (ε = ∞): it will be refused.",
        deniabilitySentence(q.kind, DESIGNS[q.design?.name], payload, {
          reportsAnOption: KINDS[q.kind]?.reports_an_option,
        }),
        payload.assumption ? `Assumption: ${payload.assumption}` : "",
        payload.group_epsilons
          ? `Group ε: ${payload.group_epsilons.map((e) => e.toFixed(3)).join(" and ")}; ${payload.planned_n_per_group} per group planned, ${payload.sample_size_per_group_for_5pp} per group for ±5 points on the honest share.`
          : "",
        payload.planned_half_width != null
          ? `Precision at n = ${payload.planned_n}: ${pp(payload.planned_half_width)}` +
            (payload.planned_half_width_direct != null
              ? ` (asking directly: ${pp(payload.planned_half_width_direct)}).`
              : ".")
          : "",
      ];
      box.textContent = parts.filter(Boolean).join(" ");
      // power.js (issue 14) computes live power for this design next to the precision. The card
      // keeps the detail too: power.js may mount after this first preview has arrived (module
      // scripts run in order, and a fetch can resolve in between), and then starts from it.
      card.lastPreview = {
        kind: kindOf(q.kind).power_kind,
        question_kind: q.kind, // power/regression.js: a regression's outcome is a stored kind
        design: q.design,
        options: q.options,
        planned_n: payload.planned_n,
      };
      card.dispatchEvent(new CustomEvent("deniable:preview", { bubbles: true, detail: card.lastPreview }));
    }
  } catch {
    if (card.previewTicket === ticket) box.textContent = "Preview unavailable (network).";
  }
  updateTotal();
}

function addCard(q) {
  const card = template.content.firstElementChild.cloneNode(true);
  uid += 1;
  for (const label of card.querySelectorAll("label[data-for]")) {
    const id = `q${uid}-${label.dataset.for.replace(/\./g, "-")}`;
    label.htmlFor = id;
    field(card, label.dataset.for).id = id;
  }
  fillCard(card, q);
  setupInnocuousPick(card, data);
  list.append(card);
  const refresh = debounce(() => preview(card), 350);
  const changed = () => {
    syncVisibility(card);
    refreshShowIf(list, KINDS);
    refresh();
  };
  card.addEventListener("input", changed);
  card.addEventListener("change", changed);
  card.addEventListener("click", (event) => {
    const action = event.target.closest("[data-action]")?.dataset.action;
    if (!action) return;
    if (action === "remove") {
      const next = card.nextElementSibling || card.previousElementSibling;
      card.remove();
      renumber();
      (next?.querySelector("[data-action=remove]") || document.getElementById("add-question")).focus();
      return;
    }
    if (action === "up" && card.previousElementSibling) list.insertBefore(card, card.previousElementSibling);
    if (action === "down" && card.nextElementSibling) list.insertBefore(card.nextElementSibling, card);
    renumber();
    event.target.focus();
  });
  syncVisibility(card);
  renumber();
  preview(card);
  return card;
}

// ---------------------------------------------------------------- errors (builder/errors.js)
const { clearCardErrors, clearErrors, placeErrors, showErrors } = builderErrors(form, list);

// ---------------------------------------------------------------- save
// <input type="datetime-local"> is in the researcher's own time zone and has no offset; send
// an absolute instant (ISO 8601, UTC) so the server never guesses the zone.
function closesAtValue() {
  const raw = document.getElementById("b-closes").value;
  if (!raw) return null;
  const when = new Date(raw);
  return Number.isNaN(when.getTime()) ? raw : when.toISOString();
}

function localInputValue(iso) {
  if (!iso) return "";
  const when = new Date(iso);
  const pad = (x) => String(x).padStart(2, "0");
  return (
    `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}` +
    `T${pad(when.getHours())}:${pad(when.getMinutes())}`
  );
}

function surveyBody() {
  return {
    title: document.getElementById("b-title").value.trim(),
    description: document.getElementById("b-description").value,
    access: document.getElementById("b-access").value,
    planned_n: num(document.getElementById("b-planned")),
    closes_at: closesAtValue(),
    response_cap: num(document.getElementById("b-cap")),
    budget: { epsilon: num(document.getElementById("b-eps")), delta: num(document.getElementById("b-delta")) },
    questions: [...list.children].map(cardValue),
    ...translations.body(), // languages, translations (builder/translations.js)
  };
}

async function save(event) {
  event.preventDefault();
  clearErrors();
  const status = document.getElementById("save-status");
  const button = document.getElementById("save");
  button.disabled = true;
  status.textContent = "Saving…";
  try {
    const {
      ok,
      status: code,
      payload,
    } = data.slug
      ? await postJSON(data.update_url, surveyBody(), "PATCH")
      : await postJSON(data.create_url, surveyBody());
    if (ok) {
      status.textContent = "Saved.";
      window.location.assign(data.detail_url_template.replace("__slug__", payload.slug || data.slug));
      return;
    }
    status.textContent = "";
    if (payload.errors) showErrors(payload.errors);
    else showErrors({ non_field_errors: [payload.detail || `Error ${code}`] });
  } catch {
    status.textContent = "Could not reach the server; nothing was saved.";
  }
  button.disabled = false;
}

// ---------------------------------------------------------------- start
const s = data.survey;
[document.getElementById("b-title").value, document.getElementById("b-description").value] = [s.title, s.description];
document.getElementById("b-access").value = s.access;
document.getElementById("b-planned").value = s.planned_n;
document.getElementById("b-closes").value = localInputValue(s.closes_at);
document.getElementById("b-cap").value = s.response_cap ?? "";
[document.getElementById("b-eps").value, document.getElementById("b-delta").value] = [s.budget.epsilon, s.budget.delta];
mountRecommend(list, data); // before the first previews: it listens for them
for (const q of s.questions.length ? s.questions : [{ key: "q1", text: "", kind: SELECT_KIND }]) addCard(q);
const translations = setupTranslations(data, form, () => ({
  title: document.getElementById("b-title").value.trim(),
  description: document.getElementById("b-description").value,
  questions: [...list.children].map(cardValue),
}));
document
  .getElementById("add-question")
  .addEventListener("click", () =>
    field(addCard({ key: `q${list.children.length + 1}`, text: "", kind: SELECT_KIND }), "text").focus(),
  );
document.getElementById("b-planned").addEventListener(
  "input",
  debounce(() => {
    for (const c of list.children) preview(c);
  }, 400),
);
form.addEventListener("submit", save);
