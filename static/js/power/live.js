/* Live power in the survey builder (issue 14): for each sensitive question, the power of the
 * test chosen in #power-settings at the planned n, and the n needed for the target power, from
 * POST /api/v1/designs/power/ (docs/analysis.md) — the normal approximation with the exact
 * binomial figure beside it (method "exact" answers both). builder.js announces every fresh design preview
 * with a "deniable:preview" event on the question card; this file only listens and renders.
 * An ES module: requests go through static/js/lib/http.js (CSRF header from the cookie); the URL
 * comes from the `builder-data` island (the server's reverse(), never written here). power.js (the
 * entry) calls `mount(document, data)`; nothing here reads the page when imported.
 */
import { send } from "../lib/http.js";
import { name as CHEATER_DETECTION } from "../respond/kinds/cheater_detection.js";
import { name as CHOICE } from "../respond/kinds/choice.js";

/**
 * The power API's request for one design preview (`detail`, from builder.js) under the settings
 * `{ test, pi0, pi1 }`, or null for a design with no one-parameter power: cheating detection has
 * two groups and a cheater share (the API refuses it with a 400; the design preview plans n per
 * group instead).
 */
export function powerRequest(detail, { test, pi0, pi1 }) {
  if (detail.design && detail.design.name === CHEATER_DETECTION) return null;
  const base = { kind: detail.kind, design: detail.design, test, pi0, pi1, alpha: 0.05 };
  if (detail.kind === CHOICE) base.options = detail.options;
  return base;
}

const percent = (p) => `${(100 * p).toFixed(0)}%`;

/**
 * The power line (issue 26 item 4): the normal approximation with the exact binomial figure
 * beside it. `atN`: the API's `method: "exact"` answer at n (`power` exact, `power_normal`);
 * `needed`: its answer for the target (`n` exact, `n_normal`), or a normal-method answer (just
 * `n`) when the exact search would pass its bound, or null when that failed too.
 */
export function powerText(test, n, target, atN, needed) {
  const what = test === "two_sample" ? `${n} per group` : `n = ${n}`;
  let text = `Power at ${what}: ${percent(atN.power_normal)} (exact binomial ${percent(atN.power)})`;
  if (!needed) return `${text}.`;
  const unit = test === "two_sample" ? "per group" : "respondents";
  const normal = needed.n_normal ?? needed.n;
  const exact = needed.n_normal === undefined ? "not searched this far" : needed.n.toLocaleString();
  text += `; ${normal.toLocaleString()} ${unit} for ${percent(target)} (exact: ${exact}).`;
  return text;
}

/** The n the power is shown at: the planned n (1000 if none), split in two for two samples. */
export const plannedN = (detail, test) =>
  Math.max(1, Math.floor((detail.planned_n || 1000) / (test === "two_sample" ? 2 : 1)));

/** Live power under `root`'s builder (the document, or a test's); `data`: the builder's island. */
export function mount(root, data) {
  const list = root.querySelector("#questions");
  const settings = root.querySelector("#power-settings");
  if (!list || !settings || !data) return;
  const URL = data.power_url;
  const last = new WeakMap(); // card → the latest preview detail

  const value = (id) => Number(root.querySelector(`#${id}`).value);

  // lib/http.js answers {ok, status, data}; here the answer body is called `payload`.
  async function post(body) {
    const { ok, data } = await send(URL, body);
    return { ok, payload: data };
  }

  function firstError(payload) {
    const [field, messages] = Object.entries(payload.errors || {})[0] || ["", [payload.detail || "invalid input"]];
    return `${field ? `${field}: ` : ""}${messages[0]}`;
  }

  const asked = new WeakMap(); // card → the number of its latest request (older answers are dropped)

  async function render(card) {
    const detail = last.get(card);
    const box = card.querySelector("[data-role=power]");
    if (!detail || !box) return;
    const ticket = (asked.get(card) || 0) + 1;
    asked.set(card, ticket);
    const test = root.querySelector("#power-test").value;
    const base = powerRequest(detail, { test, pi0: value("power-pi0"), pi1: value("power-pi1") });
    if (!base) {
      box.textContent = "Power: planned per group in the preview above.";
      return;
    }
    const n = plannedN(detail, test);
    box.textContent = "Power: calculating…";
    const target = value("power-target");
    // The exact n is searched only so far (a 400 naming `method`): then the approximation alone.
    async function neededFor() {
      const exact = await post({ ...base, power: target, method: "exact" });
      if (exact.ok || !(exact.payload.errors || {}).method) return exact;
      return post({ ...base, power: target, method: "normal" });
    }
    try {
      const [atN, needed] = await Promise.all([post({ ...base, n, method: "exact" }), neededFor()]);
      if (asked.get(card) !== ticket) return; // the design changed (or lost its preview) meanwhile
      if (!atN.ok) {
        box.textContent = `Power: ${firstError(atN.payload)}`;
        return;
      }
      box.textContent = powerText(test, n, target, atN.payload, needed.ok ? needed.payload : null);
    } catch {
      if (asked.get(card) === ticket) box.textContent = "Power unavailable (network).";
    }
  }

  list.addEventListener("deniable:preview", (event) => {
    const card = event.target.closest("li") || event.target;
    last.set(card, event.detail);
    render(card);
  });
  // The design has no valid preview (or a new one is being computed): no power line for it, and
  // any answer still in flight is dropped.
  list.addEventListener("deniable:preview-cleared", (event) => {
    const card = event.target.closest("li") || event.target;
    last.delete(card);
    asked.set(card, (asked.get(card) || 0) + 1);
    const box = card.querySelector("[data-role=power]");
    if (box) box.textContent = "";
  });
  // Previews that arrived before this module was mounted (builder.js keeps each card's latest).
  for (const card of list.children) {
    if (card.lastPreview) {
      last.set(card, card.lastPreview);
      render(card);
    }
  }
  let timer = null;
  settings.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const card of list.children) render(card);
    }, 350);
  });
}
