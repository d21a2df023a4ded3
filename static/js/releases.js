/* Central-DP releases panel (templates/privacy/_releases.html). No inline JS, CSP-safe.
 * - live cost/accuracy preview (POST …/releases/preview/, debounced; charges nothing)
 * - request a release (POST …/releases/ with a request_id, so a double click costs once)
 * - budget gauge (GET …/budget/), history, status polling every 1.5 s while pending/running
 * - results table (noisy counts, estimate, interval; for number questions the noisy sum and
 *   count and the mean), CSV/JSON download links
 */
(function () {
  "use strict";
  var root = document.getElementById("releases");
  if (!root) return;
  var form = root.querySelector("[data-role=release-form]");
  var previewBox = root.querySelector("[data-role=preview]");
  var errorBox = root.querySelector("[data-role=form-error]");
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

  function csrfToken() {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (input && input.value) return input.value;
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function api(method, url, body) {
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
        return { status: r.status, data: data };
      });
    });
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
      return Object.keys(data.errors).map(function (k) { return k + ": " + data.errors[k].join(" "); }).join("; ");
    }
    if (data && data.detail) return data.detail;
    return "Something went wrong.";
  }

  function showError(text) {
    errorBox.textContent = text || "";
    errorBox.hidden = !text;
  }

  var previewTimer = null;
  function schedulePreview() {
    showParams();
    clearTimeout(previewTimer);
    previewTimer = setTimeout(preview, 250);
  }

  function preview() {
    api("POST", urls.preview, body()).then(function (r) {
      previewBox.textContent = "";
      if (r.status !== 200) { showError(errorText(r.data)); return; }
      showError("");
      var d = r.data;
      var p = el("p");
      p.textContent = "Cost: ε " + fmt(d.epsilon_cost) + ". Budget after: ε " + fmt(d.epsilon_after) + " of " +
        fmt(d.epsilon_total) + " (" + d.method_after + ")" + (d.fits ? "." : " — over budget, it would be refused.");
      previewBox.appendChild(p);
      previewBox.appendChild(el("p", "Noise per count: ± " + fmt(d.count_std_error, 2) + " (1 SE). Expected ± on each estimate (95 %, n ≈ " + d.respondents_assumed + "):"));
      var ul = el("ul");
      d.questions.forEach(function (q) {
        var text = q.key + ": ± " + fmt(q.expected_half_width);
        if (q.kind === "number") text += " on the mean (sum ± " + fmt(q.expected_sum_std_error, 1) + ", grid step " + q.grid_step + ")";
        ul.appendChild(el("li", text));
      });
      previewBox.appendChild(ul);
      previewBox.classList.toggle("over-budget", !d.fits);
    }).catch(function () { showError("Preview unavailable."); });
  }

  function loadBudget() {
    return api("GET", urls.budget).then(function (r) {
      if (r.status !== 200) return;
      var d = r.data;
      gauge.max = d.epsilon_total;
      gauge.value = Math.min(d.epsilon_spent, d.epsilon_total);
      budgetText.textContent = "Spent ε " + fmt(d.epsilon_spent) + " of " + fmt(d.epsilon_total) +
        " at δ = " + d.delta_total + " (" + d.method + "); remaining ε " + fmt(d.epsilon_remaining) + ".";
      renderHistory(d.releases);
    });
  }

  function params(rel) {
    if (rel.mechanism === "laplace") return "ε " + rel.epsilon;
    if (rel.delta !== null) return "ε " + rel.epsilon + ", δ " + rel.delta + " (ρ " + fmt(rel.rho, 4) + ")";
    return "ρ " + rel.rho;
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
      tr.appendChild(el("td", rel.status + (rel.status === "failed" && !rel.charged ? " (refunded)" : ""), "status status-" + rel.status));
      var links = el("td");
      if (rel.status === "done") {
        var show = el("button", "Show", "link"); show.type = "button";
        show.addEventListener("click", function () { loadRelease(rel.url); });
        var json = el("a", "JSON"); json.href = rel.url; json.setAttribute("download", "release-" + rel.id + ".json");
        var csv = el("a", "CSV"); csv.href = rel.url + "?format=csv";
        links.appendChild(show); links.appendChild(document.createTextNode(" ")); links.appendChild(json);
        links.appendChild(document.createTextNode(" ")); links.appendChild(csv);
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
        if (r.status !== 200) { clearInterval(polling[url]); delete polling[url]; return; }
        if (r.data.status === "done" || r.data.status === "failed") {
          clearInterval(polling[url]); delete polling[url];
          loadBudget();
          if (r.data.status === "done") renderResults(r.data);
        }
      });
    }, 1500);
  }

  function loadRelease(url) {
    api("GET", url).then(function (r) { if (r.status === 200) renderResults(r.data); });
  }

  function resultRows(tbody, group, q) {
    if (q.kind === "number") {
      var tr = el("tr");
      [group, q.key, "mean (noisy sum " + fmt(q.noisy_sum, 2) + ")", q.noisy_count, fmt(q.mean), fmt(q.std_error),
        q.mean === null ? (q.note || "–") : "[" + fmt(q.ci_low) + ", " + fmt(q.ci_high) + "]"]
        .forEach(function (v) { tr.appendChild(el("td", v)); });
      tbody.appendChild(tr);
      return;
    }
    var rows = q.options ? q.options : [{ option: "yes", noisy_count: q.noisy_counts.yes, estimate: q.estimate,
      std_error: q.std_error, ci_low: q.ci_low, ci_high: q.ci_high }];
    rows.forEach(function (o) {
      var tr = el("tr");
      [group, q.key, o.option, o.noisy_count, fmt(o.estimate), fmt(o.std_error),
        "[" + fmt(o.ci_low) + ", " + fmt(o.ci_high) + "]"].forEach(function (v) { tr.appendChild(el("td", v)); });
      tbody.appendChild(tr);
    });
  }

  function renderResults(rel) {
    resultsBox.textContent = "";
    resultsBox.appendChild(el("h3", "Release " + rel.id.slice(0, 8) + " (" + params(rel) + ")"));
    var table = el("table", null, "release-results-table");
    var head = el("thead"); var hr = el("tr");
    ["Group", "Question", "Option", "Noisy count", "Estimate", "SE", (rel.results.confidence * 100) + " % interval"]
      .forEach(function (h) { var th = el("th", h); th.scope = "col"; hr.appendChild(th); });
    head.appendChild(hr); table.appendChild(head);
    var tbody = el("tbody");
    rel.results.questions.forEach(function (q) { resultRows(tbody, "all", q); });
    (rel.results.groups || []).forEach(function (g) {
      g.questions.forEach(function (q) { resultRows(tbody, g.group, q); });
    });
    table.appendChild(tbody);
    resultsBox.appendChild(table);
  }

  form.addEventListener("input", schedulePreview);
  form.addEventListener("change", schedulePreview);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    button.disabled = true;
    var payload = body();
    payload.request_id = form.dataset.requestId || (form.dataset.requestId = newRequestId());
    api("POST", urls.releases, payload).then(function (r) {
      if (r.status === 202 || r.status === 200) {
        showError("");
        delete form.dataset.requestId;  // the next click is a new release
        loadBudget().then(function () { poll(r.data.url); });
      } else if (r.status === 409 && r.data.error === "budget_exceeded") {
        delete form.dataset.requestId;
        showError(r.data.detail + " Remaining ε: " + fmt(r.data.remaining.epsilon) + ".");
      } else {
        delete form.dataset.requestId;
        showError(errorText(r.data));
      }
    }).catch(function () {
      showError("Network error; try again (the same request will not be charged twice).");
    }).then(function () { button.disabled = false; preview(); });
  });

  showParams();
  loadBudget();
  preview();
})();
