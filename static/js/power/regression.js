/* Power for a regression effect in the survey builder (issue 26 item 5): for each yes/no
 * question, the respondents needed to detect an odds ratio between its trait and a direct
 * predictor (binary with its share, or continuous per SD) at the target power, beside the number
 * if the question were asked directly, and the power at an n the researcher gives — all from
 * POST /api/v1/designs/power/regression/ (docs/analysis.md#regression-power); nothing is
 * computed here. Settings: #regression-settings; the question's design comes from builder.js's
 * "deniable:preview" event, as for power/live.js. The URL and the kind a regression's outcome is
 * come from the `builder-data` island (the server's reverse() and
 * surveys.analysis.regression_power). power.js (the entry) calls `mount(document, data)`.
 */
import { send } from "../lib/http.js";

/** An input's number, or null when it is empty (the API then names the missing field). */
const numberOf = (text) => (String(text).trim() === "" ? null : Number(text));

/**
 * The API bodies for one question's `design` under the settings `{ oddsRatio, predictor, share,
 * pi0, power, n }` (numbers or null): `need` asks for n at the target power, `at` for the power
 * at n (null when no n is given). With neither a target nor an n, `need` still goes, so that the
 * API names what is missing.
 */
export function regressionRequests(design, { oddsRatio, predictor, share, pi0, power, n }) {
  const effect = { odds_ratio: oddsRatio, predictor };
  if (predictor === "binary") effect.predictor_share = share;
  const base = { design, pi0, effect, alpha: 0.05 };
  return {
    need: power !== null || n === null ? { ...base, power } : null,
    at: n !== null ? { ...base, n } : null,
  };
}

const count = (x) => Number(x).toLocaleString("en");
const percent = (p) => `${(100 * p).toLocaleString("en", { maximumFractionDigits: 1 })} %`;
// A computed power: whole percents, and never "100 %" (no finite n is certain).
const chance = (p) => (p >= 0.995 ? "over 99 %" : `${Math.round(100 * p)} %`);

/** What is to be detected, from the API's echo of the request's `effect`. */
export function effectText(effect) {
  const ratio = `an odds ratio of ${count(effect.odds_ratio)}`;
  return effect.predictor === "continuous"
    ? `${ratio} per standard deviation of a continuous predictor`
    : `${ratio} for a binary predictor held by ${percent(effect.predictor_share)}`;
}

/**
 * The plain sentence from the API's answers: `needed` (to a body with `power`: `n`, `n_direct`)
 * and `atN` (to a body with `n`: `power`, `power_direct`); either may be null.
 */
export function regressionSentence(needed, atN) {
  const parts = [];
  if (needed) {
    parts.push(
      `About ${count(needed.n)} respondents for ${percent(needed.power)} power to detect ` +
        `${effectText(needed.effect)}; ${count(needed.n_direct)} if asked directly.`,
    );
  }
  if (atN) {
    parts.push(
      needed
        ? `At ${count(atN.n)} respondents: ${chance(atN.power)} power (${chance(atN.power_direct)} if asked directly).`
        : `At ${count(atN.n)} respondents, ${chance(atN.power)} power to detect ${effectText(atN.effect)}; ` +
            `${chance(atN.power_direct)} if asked directly.`,
    );
  }
  return parts.join(" ");
}

/** The API's errors of several answers, one list per field (the first answer's first). */
export function mergedErrors(payloads) {
  const out = {};
  for (const payload of payloads) {
    const errors = payload.errors || { "": [payload.detail || "invalid input"] };
    for (const [field, messages] of Object.entries(errors)) out[field] ??= messages;
  }
  return out;
}

const sentence = (text) => {
  const t = String(text).trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`;
};

/** Regression power under `root`'s builder (the document, or a test's); `data`: its island. */
export function mount(root, data) {
  const list = root.querySelector("#questions");
  const settings = root.querySelector("#regression-settings");
  if (!list || !settings || !data || !data.regression_power_url) return;
  const URL = data.regression_power_url;
  const last = new WeakMap(); // card → the latest preview detail
  const asked = new WeakMap(); // card → the number of its latest request (older answers are dropped)
  const input = (id) => settings.querySelector(`#${id}`);
  const slots = () => settings.querySelectorAll("[data-regression-error]");
  // The input a slot is about: the one beside it (none for the card's own, e.g. `effect`).
  const fieldOf = (slot) =>
    slot.parentElement === settings ? null : slot.parentElement.querySelector("input, select");

  function read() {
    return {
      oddsRatio: numberOf(input("regression-or").value),
      predictor: input("regression-predictor").value,
      share: numberOf(input("regression-share").value),
      pi0: numberOf(input("regression-pi0").value),
      power: numberOf(input("regression-power").value),
      n: numberOf(input("regression-n").value),
    };
  }

  // A continuous predictor has no share (the API refuses one).
  function syncShare() {
    const box = settings.querySelector("[data-role=share]");
    if (box) box.hidden = input("regression-predictor").value !== "binary";
  }

  function clearErrors() {
    for (const slot of slots()) {
      slot.hidden = true;
      slot.textContent = "";
      const field = fieldOf(slot);
      if (field) {
        field.removeAttribute("aria-invalid");
        field.removeAttribute("aria-describedby");
      }
    }
  }

  // Each error next to its field in the settings (the closest parent path with a slot); returns
  // those that have none (the question's design), for the question's own line.
  function placeErrors(errors) {
    clearErrors();
    const left = [];
    for (const [path, messages] of Object.entries(errors)) {
      let slot = null;
      for (let at = path; at && !slot && !at.startsWith("design"); at = at.replace(/\.?[^.]*$/, ""))
        slot = settings.querySelector(`[data-regression-error="${at}"]`);
      if (!slot) {
        left.push(`${path ? `${path}: ` : ""}${messages[0]}`);
        continue;
      }
      slot.textContent = messages.map(sentence).join(" ");
      slot.hidden = false;
      const field = fieldOf(slot);
      if (field) {
        field.setAttribute("aria-invalid", "true");
        field.setAttribute("aria-describedby", slot.id);
      }
    }
    return left;
  }

  async function post(body) {
    const { ok, data: payload } = await send(URL, body);
    return { ok, payload };
  }

  async function render(card) {
    const detail = last.get(card);
    const box = card.querySelector("[data-role=regression-power]");
    if (!box) return;
    const ticket = (asked.get(card) || 0) + 1;
    asked.set(card, ticket);
    if (!detail || detail.question_kind !== data.regression_outcome_kind) {
      box.textContent = "";
      return;
    }
    // A design without one report model (two groups) is not asked about: the server lists them.
    if (!(data.regression_design_names || []).includes(detail.design && detail.design.name)) {
      box.textContent = "Regression power: not for this design (its groups are planned above).";
      return;
    }
    const { need, at } = regressionRequests(detail.design, read());
    box.textContent = "Regression power: calculating…";
    try {
      const answers = await Promise.all([need ? post(need) : null, at ? post(at) : null]);
      if (asked.get(card) !== ticket) return; // the design or the settings changed meanwhile
      const failed = answers.filter((a) => a && !a.ok);
      if (failed.length) {
        const left = placeErrors(mergedErrors(failed.map((a) => a.payload)));
        box.textContent = left.length
          ? `Regression power: ${left.join(" ")}`
          : "Regression power: fix the settings above.";
        return;
      }
      clearErrors();
      const [needed, atN] = answers.map((a) => (a ? a.payload : null));
      box.textContent = regressionSentence(needed, atN);
    } catch {
      if (asked.get(card) === ticket) box.textContent = "Regression power unavailable (network).";
    }
  }

  list.addEventListener("deniable:preview", (event) => {
    const card = event.target.closest("li") || event.target;
    last.set(card, event.detail);
    render(card);
  });
  list.addEventListener("deniable:preview-cleared", (event) => {
    const card = event.target.closest("li") || event.target;
    last.delete(card);
    asked.set(card, (asked.get(card) || 0) + 1);
    const box = card.querySelector("[data-role=regression-power]");
    if (box) box.textContent = "";
  });
  for (const card of list.children) {
    if (card.lastPreview) {
      last.set(card, card.lastPreview);
      render(card);
    }
  }
  syncShare();
  let timer = null;
  settings.addEventListener("input", () => {
    syncShare();
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const card of list.children) render(card);
    }, 350);
  });
  settings.addEventListener("change", syncShare);
}
