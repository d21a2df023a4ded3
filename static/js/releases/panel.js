/* Central-DP releases panel (templates/privacy/_releases.html). No inline JS, CSP-safe.
 * - live cost/accuracy preview (POST …/releases/preview/, debounced; charges nothing), with the
 *   server's advice: which estimates will be too noisy to use, how often counts will be negative,
 *   and a proposed ε (privacy.services.advice — the formulas live on the server only)
 * - the Release button is disabled, with the reason, while the preview says it would be refused
 * - choosing a Group-by leaves that question out of the released ones (unticked and disabled)
 * - a release is confirmed in a <dialog> ("This spends ε = … of the remaining …") before the
 *   POST …/releases/ (with a request_id, so a double click costs once); its errors stay shown
 * - budget gauge (GET …/budget/), history, status polling every 1.5 s while pending/running
 * - results table in percent, with notes on negative noisy counts and clipped estimates
 *
 * An ES module: requests through static/js/lib/http.js; URLs from the panel's data-* attributes.
 * releases.js (the entry) finds the panel and calls `releasesPanel(root)`; nothing here reads the
 * page when imported.
 */

import { ErrorCode } from "../lib/error_codes.js";
import { errorText as httpErrorText, request as httpRequest } from "../lib/http.js";
import { chosenMechanism, fitSelection, leaveOutGroupBy, requestBody, showMechanismParams } from "./form.js";
import { renderHistory } from "./history.js";
import { halfWidth, renderPreview } from "./preview.js";
import { composedNote, el, fmt, renderResults as drawResults } from "./results.js";

export function releasesPanel(root) {
  const form = root.querySelector("[data-role=release-form]");
  const previewBox = root.querySelector("[data-role=preview]");
  const adviceBox = root.querySelector("[data-role=advice]");
  const previewError = root.querySelector("[data-role=preview-error]");
  const errorBox = root.querySelector("[data-role=form-error]");
  const refusal = root.querySelector("[data-role=refusal]");
  const defaultNote = root.querySelector("[data-role=default-note]");
  const releaseButton = root.querySelector("[data-role=release]");
  const dialog = root.querySelector("[data-role=confirm-dialog]");
  const history = root.querySelector("[data-role=history]");
  const resultsBox = root.querySelector("[data-role=results]");
  const gauge = root.querySelector("[data-role=budget-gauge]");
  const budgetText = root.querySelector("[data-role=budget-text]");
  const urls = {
    releases: root.dataset.releasesUrl,
    preview: root.dataset.previewUrl,
    budget: root.dataset.budgetUrl,
  };
  const polling = {};
  let previewTimer = null;
  const state = { preview: null, pending: false, sending: false, previewFailed: false, epsilonTouched: false, seq: 0 };
  const FIELD_NAMES = {
    epsilon: "ε",
    delta: "δ",
    rho: "ρ",
    questions: "Questions",
    group_by: "Group by",
    mechanism: "Mechanism",
    statistic: "Statistic",
    q: "q",
    non_field_errors: "",
  };

  // aria-busy on the panel while a request, a debounced preview or a status poll is under way:
  // assistive technology waits for the settled text (and so can a test).
  let inflight = 0;
  function setBusy() {
    const busy = inflight > 0 || previewTimer !== null || Object.keys(polling).length > 0;
    root.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // Every request goes through lib/http.js (JSON, CSRF header from the cookie); the panel only
  // counts what is in flight, for aria-busy.
  function api(method, url, body) {
    inflight += 1;
    setBusy();
    const done = () => {
      inflight -= 1;
      setBusy();
    };
    return httpRequest(url, { method, json: body }).then(
      (r) => {
        done();
        return { status: r.status, data: r.data };
      },
      (error) => {
        done();
        throw error;
      },
    );
  }

  function newRequestId() {
    const a = new Uint8Array(16);
    crypto.getRandomValues(a);
    return Array.prototype.map
      .call(a, (b) => {
        return ("0" + b.toString(16)).slice(-2);
      })
      .join("");
  }

  const mechanismChoice = () => chosenMechanism(form);
  const showParams = () => showMechanismParams(form);
  const syncGroupBy = () => {
    fitSelection(form);
    leaveOutGroupBy(form);
  };
  const body = () => requestBody(form);

  const errorText = (data) => httpErrorText(data, FIELD_NAMES);

  function show(box, text) {
    box.textContent = text || "";
    box.hidden = !text;
  }

  // Disabled (with the reason next to it) whenever the release would be refused or is unknown.
  function updateButton() {
    const p = state.preview;
    let reason = "";
    if (state.sending) reason = "Sending the release…";
    else if (state.pending) reason = "Updating the preview…";
    else if (state.previewFailed) reason = "The release would be refused: fix the problem above first.";
    else if (!p) reason = "Waiting for the preview…";
    else if (!p.fits)
      reason =
        "The release would be refused: it costs more than the remaining budget (ε " +
        fmt(p.epsilon_total - p.epsilon_spent_before) +
        " left). Lower ε, or release fewer questions.";
    releaseButton.disabled = !!reason;
    show(refusal, reason);
  }

  function schedulePreview() {
    showParams();
    syncGroupBy();
    // Leaving the ε box fires "change" with nothing changed: re-previewing then would disable
    // the button between mousedown and click, and swallow the click on Release.
    if (JSON.stringify(body()) === state.lastKey && (state.pending || state.preview)) return;
    state.pending = true;
    updateButton();
    clearTimeout(previewTimer);
    previewTimer = setTimeout(() => {
      previewTimer = null;
      preview();
    }, 250);
    setBusy();
  }

  function preview() {
    const seq = ++state.seq;
    const request = body();
    const key = JSON.stringify(request);
    // A refresh of the same request (after a release, or a budget reload) keeps the button as it
    // is until the answer comes: disabling it meanwhile would swallow a click already under way.
    if (key !== state.lastKey || !state.preview) {
      state.pending = true;
      updateButton();
    }
    state.lastKey = key;
    return api("POST", urls.preview, request)
      .then((r) => {
        if (seq !== state.seq) return; // a newer preview is on its way
        state.pending = false;
        previewBox.textContent = "";
        adviceBox.textContent = "";
        if (r.status !== 200) {
          state.preview = null;
          state.previewFailed = true;
          show(previewError, errorText(r.data));
          updateButton();
          return;
        }
        state.previewFailed = false;
        show(previewError, "");
        if (applyDefault(r.data, request)) return;
        state.preview = r.data;
        renderPreview(previewBox, adviceBox, r.data);
        updateButton();
      })
      .catch(() => {
        if (seq !== state.seq) return;
        state.pending = false;
        state.preview = null;
        state.previewFailed = true;
        show(previewError, "Preview unavailable (network); the release cannot be checked.");
        updateButton();
      });
  }

  // The proposed ε (server-side policy, privacy.services.advice) fills the ε box until the
  // researcher types their own. Returns true when it changed the box (a new preview follows).
  function applyDefault(d, request) {
    const m = mechanismChoice();
    if (m === "gaussian-rho" || state.epsilonTouched || d.default_epsilon === null) {
      defaultNote.hidden = true;
      if (d.default_reason === "exhausted") show(defaultNote, "No budget is left: nothing more can be released.");
      return false;
    }
    const why =
      d.default_reason === "target"
        ? "the smallest ε at which every estimate reaches ±10 pp (or, where too few respondents rule that out, comes close to what sampling allows)."
        : "half of the remaining budget: the target accuracy (±10 pp) would need ε = " +
          (d.suggested_value === null ? "more" : fmt(d.suggested_value)) +
          ", more than is left.";
    show(defaultNote, "Proposed ε = " + d.default_epsilon + ": " + why + " Type another value to override.");
    if (Number(form.elements.epsilon.value) === d.default_epsilon || request.epsilon === d.default_epsilon)
      return false;
    form.elements.epsilon.value = String(d.default_epsilon);
    preview();
    return true;
  }

  function loadBudget() {
    return api("GET", urls.budget).then((r) => {
      if (r.status !== 200) return;
      const d = r.data;
      gauge.max = d.epsilon_total;
      gauge.value = Math.min(d.epsilon_spent, d.epsilon_total);
      budgetText.textContent =
        "Spent ε " +
        fmt(d.epsilon_spent) +
        " of " +
        fmt(d.epsilon_total) +
        " at δ = " +
        d.delta_total +
        "; remaining ε " +
        fmt(d.epsilon_remaining) +
        "." +
        composedNote(d);
      renderHistory(history, d.releases, { poll, show: loadRelease });
    });
  }

  function poll(url) {
    if (polling[url]) return;
    polling[url] = setInterval(() => {
      api("GET", url).then((r) => {
        if (r.status !== 200) {
          clearInterval(polling[url]);
          delete polling[url];
          setBusy();
          return;
        }
        if (r.data.status === "done" || r.data.status === "failed") {
          // The refresh starts before the poll is dropped, so the panel never looks idle between.
          loadBudget().then(preview);
          clearInterval(polling[url]);
          delete polling[url];
          if (r.data.status === "done") renderResults(r.data);
        }
      });
    }, 1500);
    setBusy();
  }

  function renderResults(rel) {
    drawResults(resultsBox, rel);
  }

  function loadRelease(url) {
    api("GET", url).then((r) => {
      if (r.status === 200) renderResults(r.data);
    });
  }

  // --- request a release: confirm first, then send; errors stay until the next attempt ------
  function openDialog() {
    const d = state.preview;
    const remaining = d.epsilon_total - d.epsilon_spent_before;
    const spends = d.epsilon_after - d.epsilon_spent_before;
    dialog.querySelector("[data-role=dialog-summary]").textContent =
      "This spends ε = " +
      fmt(spends) +
      " of the remaining " +
      fmt(remaining) +
      " (ε " +
      fmt(d.epsilon_after) +
      " of " +
      fmt(d.epsilon_total) +
      " will then be spent); it cannot be undone.";
    const details = dialog.querySelector("[data-role=dialog-details]");
    details.textContent = "";
    const b = body();
    details.appendChild(el("li", "Questions: " + b.questions.join(", ") + (b.group_by ? ", by " + b.group_by : "")));
    details.appendChild(
      el(
        "li",
        "Expected 95 % intervals: " +
          d.questions
            .map((q) => {
              return q.key + " " + halfWidth(q);
            })
            .join(", "),
      ),
    );
    if (!d.useful)
      details.appendChild(el("li", "Warning: some estimates will be too noisy to use (see the panel).", "warn-text"));
    dialog.returnValue = "";
    dialog.showModal();
    dialog.querySelector("[data-role=cancel]").focus();
  }

  function send() {
    state.sending = true;
    updateButton();
    show(errorBox, "");
    const payload = body();
    payload.request_id = form.dataset.requestId || (form.dataset.requestId = newRequestId());
    api("POST", urls.releases, payload)
      .then((r) => {
        if (r.status === 202 || r.status === 200) {
          delete form.dataset.requestId; // the next click is a new release
          loadBudget().then(() => {
            poll(r.data.url);
          });
        } else if (r.status === 409 && r.data.error === ErrorCode.BUDGET_EXCEEDED) {
          delete form.dataset.requestId;
          show(
            errorBox,
            "Release refused: " +
              r.data.detail +
              " Remaining ε: " +
              fmt(r.data.remaining.epsilon) +
              ". Nothing was spent.",
          );
        } else {
          delete form.dataset.requestId;
          show(errorBox, "Release refused: " + errorText(r.data) + " Nothing was spent.");
        }
      })
      .catch(() => {
        show(errorBox, "Network error; try again (the same request will not be charged twice).");
      })
      .then(() => {
        state.sending = false;
        loadBudget().then(preview);
      });
  }

  // A viewer or an editor: the budget, the history and the results, but no request form (only
  // the owner spends the budget, docs/teams.md#roles).
  if (!form) {
    loadBudget();
    return;
  }

  form.elements.epsilon.addEventListener("input", (event) => {
    if (event.isTrusted) state.epsilonTouched = true;
  });
  form.addEventListener("input", schedulePreview);
  form.addEventListener("change", schedulePreview);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (releaseButton.disabled || !state.preview || !state.preview.fits) return;
    openDialog();
  });
  dialog.querySelector("[data-role=confirm]").addEventListener("click", () => {
    dialog.close("confirm");
    send();
  });
  dialog.querySelector("[data-role=cancel]").addEventListener("click", () => {
    dialog.close("cancel");
  });
  dialog.addEventListener("close", () => {
    if (dialog.returnValue !== "confirm") releaseButton.focus();
  });

  showParams();
  syncGroupBy();
  updateButton();
  loadBudget();
  preview();
}
