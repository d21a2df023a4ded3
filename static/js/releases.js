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
 */
(function () {
  "use strict";
  var root = document.getElementById("releases");
  if (!root) return;
  var form = root.querySelector("[data-role=release-form]");
  var previewBox = root.querySelector("[data-role=preview]");
  var adviceBox = root.querySelector("[data-role=advice]");
  var previewError = root.querySelector("[data-role=preview-error]");
  var errorBox = root.querySelector("[data-role=form-error]");
  var refusal = root.querySelector("[data-role=refusal]");
  var defaultNote = root.querySelector("[data-role=default-note]");
  var releaseButton = root.querySelector("[data-role=release]");
  var dialog = root.querySelector("[data-role=confirm-dialog]");
  var history = root.querySelector("[data-role=history]");
  var resultsBox = root.querySelector("[data-role=results]");
  var gauge = root.querySelector("[data-role=budget-gauge]");
  var budgetText = root.querySelector("[data-role=budget-text]");
  var urls = {
    releases: root.dataset.releasesUrl,
    preview: root.dataset.previewUrl,
    budget: root.dataset.budgetUrl
  };
  var polling = {};
  var previewTimer = null;
  var state = { preview: null, pending: false, sending: false, previewFailed: false, epsilonTouched: false, seq: 0 };
  var FIELD_NAMES = { epsilon: "ε", delta: "δ", rho: "ρ", questions: "Questions", group_by: "Group by",
    mechanism: "Mechanism", non_field_errors: "" };

  function csrfToken() {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (input && input.value) return input.value;
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  // aria-busy on the panel while a request, a debounced preview or a status poll is under way:
  // assistive technology waits for the settled text (and so can a test).
  var inflight = 0;
  function setBusy() {
    var busy = inflight > 0 || previewTimer !== null || Object.keys(polling).length > 0;
    root.setAttribute("aria-busy", busy ? "true" : "false");
  }

  function api(method, url, body) {
    inflight += 1;
    setBusy();
    function done() { inflight -= 1; setBusy(); }
    var opts = {
      method: method,
      credentials: "same-origin",
      headers: { "Accept": "application/json" }
    };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.headers["X-CSRFToken"] = csrfToken();
      opts.body = JSON.stringify(body);
    }
    return fetch(url, opts).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) {
        done();
        return { status: r.status, data: data };
      });
    }, function (error) { done(); throw error; });
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function fmt(x, digits) {
    if (x === null || x === undefined) return "–";
    return Number(x).toFixed(digits === undefined ? 3 : digits);
  }
  function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }
  function pp(x) { return "±" + (100 * x).toFixed(1) + " pp"; }
  function isProportion(q) { return q.kind !== "number"; }
  function halfWidth(q) {
    // Past ±100 pp an interval covers every possible share: say so rather than "±365.9 pp".
    if (isProportion(q) && q.expected_half_width >= 1) return "±100 pp or more (no information)";
    return isProportion(q) ? pp(q.expected_half_width) : "±" + fmt(q.expected_half_width, 1) + " on the mean";
  }

  function newRequestId() {
    var a = new Uint8Array(16);
    crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function mechanismChoice() {
    var checked = form.querySelector("input[name=mechanism]:checked");
    return checked ? checked.value : "laplace";
  }

  function showParams() {
    var m = mechanismChoice();
    var show = { epsilon: m !== "gaussian-rho", delta: m === "gaussian-eps", rho: m === "gaussian-rho" };
    Object.keys(show).forEach(function (k) {
      var label = form.querySelector("[data-param=" + k + "]");
      if (label) label.hidden = !show[k];
    });
  }

  // The group-by question cannot be released within its own groups (the API answers 400): leave
  // it out by itself, say why, and put it back when the grouping changes.
  function syncGroupBy() {
    var g = form.elements.group_by.value;
    Array.prototype.forEach.call(form.querySelectorAll("input[name=questions]"), function (box) {
      var note = form.querySelector("[data-role=group-note][data-key='" + box.value + "']");
      if (box.value === g) {
        if (!box.disabled) box.dataset.wasChecked = box.checked ? "yes" : "no";
        box.checked = false;
        box.disabled = true;
        if (note) note.hidden = false;
      } else if (box.disabled) {
        box.disabled = false;
        box.checked = box.dataset.wasChecked !== "no";
        if (note) note.hidden = true;
      }
    });
  }

  function body() {
    var m = mechanismChoice();
    var out = { mechanism: m === "laplace" ? "laplace" : "gaussian" };
    function num(name) { return Number(form.elements[name].value); }
    if (m === "laplace") out.epsilon = num("epsilon");
    if (m === "gaussian-eps") { out.epsilon = num("epsilon"); out.delta = num("delta"); }
    if (m === "gaussian-rho") out.rho = num("rho");
    out.questions = Array.prototype.filter.call(form.querySelectorAll("input[name=questions]"), function (c) { return c.checked; })
      .map(function (c) { return c.value; });
    var g = form.elements.group_by.value;
    if (g) out.group_by = g;
    return out;
  }

  function errorText(data) {
    if (data && data.errors) {
      return Object.keys(data.errors).map(function (k) {
        var name = FIELD_NAMES[k] !== undefined ? FIELD_NAMES[k] : k;
        return (name ? name + ": " : "") + data.errors[k].join(" ");
      }).join(" ");
    }
    if (data && data.detail) return data.detail;
    return "Something went wrong.";
  }

  function show(box, text) {
    box.textContent = text || "";
    box.hidden = !text;
  }

  // Disabled (with the reason next to it) whenever the release would be refused or is unknown.
  function updateButton() {
    var p = state.preview;
    var reason = "";
    if (state.sending) reason = "Sending the release…";
    else if (state.pending) reason = "Updating the preview…";
    else if (state.previewFailed) reason = "The release would be refused: fix the problem above first.";
    else if (!p) reason = "Waiting for the preview…";
    else if (!p.fits) reason = "The release would be refused: it costs more than the remaining budget (ε " +
      fmt(p.epsilon_total - p.epsilon_spent_before) + " left). Lower ε, or release fewer questions.";
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
    previewTimer = setTimeout(function () { previewTimer = null; preview(); }, 250);
    setBusy();
  }

  function preview() {
    var seq = ++state.seq;
    var request = body();
    var key = JSON.stringify(request);
    // A refresh of the same request (after a release, or a budget reload) keeps the button as it
    // is until the answer comes: disabling it meanwhile would swallow a click already under way.
    if (key !== state.lastKey || !state.preview) {
      state.pending = true;
      updateButton();
    }
    state.lastKey = key;
    return api("POST", urls.preview, request).then(function (r) {
      if (seq !== state.seq) return;  // a newer preview is on its way
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
      renderPreview(r.data);
      updateButton();
    }).catch(function () {
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
    var m = mechanismChoice();
    if (m === "gaussian-rho" || state.epsilonTouched || d.default_epsilon === null) {
      defaultNote.hidden = true;
      if (d.default_reason === "exhausted") show(defaultNote, "No budget is left: nothing more can be released.");
      return false;
    }
    var why = d.default_reason === "target"
      ? "the smallest ε at which every estimate reaches ±10 pp (or, where too few respondents rule that out, comes close to what sampling allows)."
      : "half of the remaining budget: the target accuracy (±10 pp) would need ε = " +
        (d.suggested_value === null ? "more" : fmt(d.suggested_value)) + ", more than is left.";
    show(defaultNote, "Proposed ε = " + d.default_epsilon + ": " + why + " Type another value to override.");
    if (Number(form.elements.epsilon.value) === d.default_epsilon || request.epsilon === d.default_epsilon) return false;
    form.elements.epsilon.value = String(d.default_epsilon);
    preview();
    return true;
  }

  function renderPreview(d) {
    var spends = d.epsilon_after - d.epsilon_spent_before;
    previewBox.appendChild(el("p", "Cost: ε " + fmt(d.epsilon_cost) + " (adds " + fmt(spends) + " to the budget spent). Budget after: ε " +
      fmt(d.epsilon_after) + " of " + fmt(d.epsilon_total) + (d.fits ? "." : " — over budget, it would be refused.")));
    previewBox.appendChild(el("p", "Noise per count: ±" + fmt(d.count_std_error, 1) + " (1 SE). Expected 95 % interval on each estimate (n ≈ " +
      Math.round(d.respondents_per_group) + (d.groups > 1 ? " per group" : "") + "):"));
    var ul = el("ul", null, "plain-list");
    d.questions.forEach(function (q) {
      var text = q.key + ": " + halfWidth(q);
      if (q.kind === "number") text += " (sum ±" + fmt(q.expected_sum_std_error, 1) + ", grid step " + q.grid_step + ")";
      var li = el("li", text, q.useful ? "" : "too-noisy");
      if (!q.useful) li.appendChild(el("span", " — too noisy", "warn-text"));
      ul.appendChild(li);
    });
    previewBox.appendChild(ul);
    previewBox.classList.toggle("over-budget", !d.fits);
    renderAdvice(d);
  }

  function renderAdvice(d) {
    var noisy = d.questions.filter(function (q) { return !q.useful; });
    if (noisy.length) {
      var box = el("div", null, "notice warn");
      box.appendChild(el("p", "Too noisy to rely on: " + noisy.map(function (q) {
        return q.key + " " + halfWidth(q);
      }).join(", ") + " — wider than the ±10 pp target (±10 % of the range for a mean)."));
      var floorOnly = noisy.filter(function (q) { return q.sampling_half_width > q.target_half_width; });
      if (floorOnly.length) {
        box.appendChild(el("p", "Even with no central noise " + floorOnly.map(function (q) {
          return q.key + " reaches only " + (isProportion(q) ? pp(q.sampling_half_width) : "±" + fmt(q.sampling_half_width, 1));
        }).join(", ") + ": too few respondents" + (d.groups > 1 ? " per group" : "") + " for that precision."));
      }
      box.appendChild(el("p", "Raise ε, release fewer questions" + (d.groups > 1 ? ", or drop the group-by" : "") + "."));
      adviceBox.appendChild(box);
    }
    if (d.negative_count_chance >= d.negative_count_warning) {
      adviceBox.appendChild(el("p", "Many noisy counts will be negative: the noise (±" + fmt(d.count_std_error, 1) +
        " per count) is about as large as a typical cell (≈ " + Math.round(d.respondents_per_group) +
        " reports spread over the options), so about " + Math.round(100 * d.negative_count_chance) +
        " % of average-sized counts fall below zero.", "notice warn"));
    }
  }

  function loadBudget() {
    return api("GET", urls.budget).then(function (r) {
      if (r.status !== 200) return;
      var d = r.data;
      gauge.max = d.epsilon_total;
      gauge.value = Math.min(d.epsilon_spent, d.epsilon_total);
      budgetText.textContent = "Spent ε " + fmt(d.epsilon_spent) + " of " + fmt(d.epsilon_total) +
        " at δ = " + d.delta_total + "; remaining ε " + fmt(d.epsilon_remaining) + ".";
      renderHistory(d.releases);
    });
  }

  function params(rel) {
    if (rel.mechanism === "laplace") return "ε " + rel.epsilon;
    if (rel.delta !== null) return "ε " + rel.epsilon + ", δ " + rel.delta + " (ρ " + fmt(rel.rho, 4) + ")";
    return "ρ " + rel.rho;
  }

  function link(text, href, label) {
    var a = el("a", text);
    a.href = href;
    a.setAttribute("download", "");  // the server names the file (Content-Disposition)
    a.setAttribute("aria-label", label);
    return a;
  }

  function renderHistory(releases) {
    history.textContent = "";
    if (!releases.length) {
      var tr = el("tr"); var td = el("td", "No releases yet."); td.colSpan = 5; tr.appendChild(td); history.appendChild(tr);
      return;
    }
    releases.forEach(function (rel) {
      var tr = el("tr");
      tr.appendChild(el("td", new Date(rel.created_at).toLocaleString()));
      tr.appendChild(el("td", rel.mechanism));
      tr.appendChild(el("td", params(rel) + " · " + rel.questions.join(", ") + (rel.group_by ? " by " + rel.group_by : "")));
      var st = el("td"); st.appendChild(el("span", rel.status + (rel.status === "failed" && !rel.charged ? " (refunded)" : ""), "status status-" + rel.status));
      tr.appendChild(st);
      var links = el("td");
      if (rel.status === "done") {
        var showButton = el("button", "Show", "link"); showButton.type = "button";
        showButton.setAttribute("aria-label", "Show release " + rel.id.slice(0, 8));
        showButton.addEventListener("click", function () { loadRelease(rel.url); });
        links.appendChild(showButton); links.appendChild(document.createTextNode(" "));
        links.appendChild(link("CSV", rel.url + "?format=csv", "Download release " + rel.id.slice(0, 8) + " as CSV"));
        links.appendChild(document.createTextNode(" "));
        links.appendChild(link("JSON", rel.url + "?download=1", "Download release " + rel.id.slice(0, 8) + " as JSON"));
      } else if (rel.status === "pending" || rel.status === "running") {
        poll(rel.url);
      }
      tr.appendChild(links);
      history.appendChild(tr);
    });
  }

  function poll(url) {
    if (polling[url]) return;
    polling[url] = setInterval(function () {
      api("GET", url).then(function (r) {
        if (r.status !== 200) { clearInterval(polling[url]); delete polling[url]; setBusy(); return; }
        if (r.data.status === "done" || r.data.status === "failed") {
          // The refresh starts before the poll is dropped, so the panel never looks idle between.
          loadBudget().then(preview);
          clearInterval(polling[url]); delete polling[url];
          if (r.data.status === "done") renderResults(r.data);
        }
      });
    }, 1500);
    setBusy();
  }

  function loadRelease(url) {
    api("GET", url).then(function (r) { if (r.status === 200) renderResults(r.data); });
  }

  var marks;  // which notes the current results table needs
  function estimateText(o, proportion) {
    if (o.estimate === null || o.estimate === undefined) return o.note || "–";
    var text = proportion ? pct(o.estimate) : fmt(o.estimate, 2);
    // Pinned at an edge (0 or 1, or a number question's bound) — not k-RR's small projection.
    var edges = proportion ? [0, 1] : [o.min, o.max];
    if (o.estimate_unclipped !== null && o.estimate_unclipped !== undefined && o.estimate_unclipped !== o.estimate &&
        edges.indexOf(o.estimate) !== -1) {
      marks.clipped = true;
      text += " *";
    }
    return text;
  }
  function countText(count) {
    if (count < 0) { marks.negative = true; return count + " †"; }
    return String(count);
  }

  function resultRows(tbody, group, q) {
    var cells;
    if (q.kind === "number") {
      cells = [[group, q.key, "mean (noisy sum " + fmt(q.noisy_sum, 2) + ")", countText(q.noisy_count), estimateText(q, false),
        fmt(q.std_error, 2), q.mean === null ? "–" : fmt(q.ci_low, 2) + "–" + fmt(q.ci_high, 2)]];
    } else {
      var rows = q.options ? q.options : [{ option: "yes", noisy_count: q.noisy_counts.yes, estimate: q.estimate,
        estimate_unclipped: q.estimate_unclipped, std_error: q.std_error, ci_low: q.ci_low, ci_high: q.ci_high }];
      cells = rows.map(function (o) {
        return [group, q.key, o.option, countText(o.noisy_count), estimateText(o, true),
          o.std_error === null ? "–" : (100 * o.std_error).toFixed(1) + " pp",
          o.ci_low === null ? "–" : (100 * o.ci_low).toFixed(1) + "–" + pct(o.ci_high)];
      });
    }
    cells.forEach(function (values) {
      var tr = el("tr");
      values.forEach(function (v, i) { tr.appendChild(el("td", v, i >= 3 ? "num" : "")); });
      tbody.appendChild(tr);
    });
  }

  function renderResults(rel) {
    marks = { negative: false, clipped: false };
    resultsBox.textContent = "";
    resultsBox.appendChild(el("h3", "Release " + rel.id.slice(0, 8) + " (" + params(rel) + ")"));
    var wrap = el("div", null, "table-wrap");
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", "Results of release " + rel.id.slice(0, 8));
    wrap.tabIndex = 0;
    var table = el("table", null, "release-results-table");
    var head = el("thead"); var hr = el("tr");
    ["Group", "Question", "Option", "Noisy count", "Estimate", "SE", (rel.results.confidence * 100) + " % interval"]
      .forEach(function (h, i) { var th = el("th", h, i >= 3 ? "num" : ""); th.scope = "col"; hr.appendChild(th); });
    head.appendChild(hr); table.appendChild(head);
    var tbody = el("tbody");
    rel.results.questions.forEach(function (q) { resultRows(tbody, "all", q); });
    (rel.results.groups || []).forEach(function (g) {
      g.questions.forEach(function (q) { resultRows(tbody, g.group, q); });
    });
    table.appendChild(tbody);
    wrap.appendChild(table);
    resultsBox.appendChild(wrap);
    if (marks.negative) {
      resultsBox.appendChild(el("p", "† A noisy count below zero: the privacy noise added to this count is larger than the count itself. " +
        "It is published as drawn — rounding it up to 0 would bias every total built from it — so read it as “about zero”.", "hint note-negative"));
    }
    if (marks.clipped) {
      resultsBox.appendChild(el("p", "* Pinned at 0% or 100% (or at a number question's bound): the debiased value fell outside the possible range, " +
        "which noise and randomized answers can produce when the true value is near the edge. The unclipped value is the estimate_unclipped column of the CSV.",
        "hint note-clipped"));
    }
  }

  // --- request a release: confirm first, then send; errors stay until the next attempt ------
  function openDialog() {
    var d = state.preview;
    var remaining = d.epsilon_total - d.epsilon_spent_before;
    var spends = d.epsilon_after - d.epsilon_spent_before;
    dialog.querySelector("[data-role=dialog-summary]").textContent = "This spends ε = " + fmt(spends) +
      " of the remaining " + fmt(remaining) + " (ε " + fmt(d.epsilon_after) + " of " + fmt(d.epsilon_total) +
      " will then be spent); it cannot be undone.";
    var details = dialog.querySelector("[data-role=dialog-details]");
    details.textContent = "";
    var b = body();
    details.appendChild(el("li", "Questions: " + b.questions.join(", ") + (b.group_by ? ", by " + b.group_by : "")));
    details.appendChild(el("li", "Expected 95 % intervals: " + d.questions.map(function (q) { return q.key + " " + halfWidth(q); }).join(", ")));
    if (!d.useful) details.appendChild(el("li", "Warning: some estimates will be too noisy to use (see the panel).", "warn-text"));
    dialog.returnValue = "";
    dialog.showModal();
    dialog.querySelector("[data-role=cancel]").focus();
  }

  function send() {
    state.sending = true;
    updateButton();
    show(errorBox, "");
    var payload = body();
    payload.request_id = form.dataset.requestId || (form.dataset.requestId = newRequestId());
    api("POST", urls.releases, payload).then(function (r) {
      if (r.status === 202 || r.status === 200) {
        delete form.dataset.requestId;  // the next click is a new release
        loadBudget().then(function () { poll(r.data.url); });
      } else if (r.status === 409 && r.data.error === "budget_exceeded") {
        delete form.dataset.requestId;
        show(errorBox, "Release refused: " + r.data.detail + " Remaining ε: " + fmt(r.data.remaining.epsilon) + ". Nothing was spent.");
      } else {
        delete form.dataset.requestId;
        show(errorBox, "Release refused: " + errorText(r.data) + " Nothing was spent.");
      }
    }).catch(function () {
      show(errorBox, "Network error; try again (the same request will not be charged twice).");
    }).then(function () {
      state.sending = false;
      loadBudget().then(preview);
    });
  }

  form.elements.epsilon.addEventListener("input", function (event) {
    if (event.isTrusted) state.epsilonTouched = true;
  });
  form.addEventListener("input", schedulePreview);
  form.addEventListener("change", schedulePreview);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (releaseButton.disabled || !state.preview || !state.preview.fits) return;
    openDialog();
  });
  dialog.querySelector("[data-role=confirm]").addEventListener("click", function () {
    dialog.close("confirm");
    send();
  });
  dialog.querySelector("[data-role=cancel]").addEventListener("click", function () { dialog.close("cancel"); });
  dialog.addEventListener("close", function () {
    if (dialog.returnValue !== "confirm") releaseButton.focus();
  });

  showParams();
  syncGroupBy();
  updateButton();
  loadBudget();
  preview();
})();
