// The releases panel's shared formatting and its results table (imported by releases.js).
// Display only: every number shown here comes from the server's release body.

export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

export function fmt(x, digits) {
  if (x === null || x === undefined) return "–";
  return Number(x).toFixed(digits === undefined ? 3 : digits);
}
export function pct(x) {
  return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%";
}
export function pp(x) {
  return "±" + (100 * x).toFixed(1) + " pp";
}

// Issue 22.12: one figure, the one charged. A release's `charged_epsilon` is what charging it
// added to the survey's spent ε (the composition at the survey's δ: one Laplace release at ε 0.5
// is charged 0.498), so the history's figures add up to the budget's; the mechanism's own
// parameters follow as "requested".
// A selection's statistic, in words ("median", "quantile 0.9", "mode").
export function statisticLabel(statistic, q) {
  return statistic === "quantile" ? "quantile " + q : statistic;
}

function requested(rel) {
  if (rel.mechanism === "laplace") return "requested ε " + rel.epsilon;
  if (rel.mechanism === "exponential")
    return "requested ε " + rel.epsilon + ", " + statisticLabel(rel.statistic, rel.quantile);
  if (rel.delta !== null) return "requested ε " + rel.epsilon + ", δ " + rel.delta + " (ρ " + fmt(rel.rho, 4) + ")";
  return "ρ " + rel.rho;
}

export function params(rel) {
  if (rel.charged && rel.charged_epsilon !== null && rel.charged_epsilon !== undefined) {
    return "ε charged " + fmt(rel.charged_epsilon) + " (" + requested(rel) + ")";
  }
  return requested(rel);
}

// Releases charged before `charged_epsilon` existed show only what they requested: say how that
// relates to the budget's figure when the two differ.
export function composedNote(d) {
  const charged = d.releases.filter((rel) => rel.charged);
  if (!charged.length || charged.some((rel) => rel.epsilon === null)) return "";
  if (charged.every((rel) => rel.charged_epsilon !== null && rel.charged_epsilon !== undefined)) return "";
  const requested = charged.reduce((sum, rel) => sum + rel.epsilon, 0);
  if (fmt(requested) === fmt(d.epsilon_spent)) return "";
  return (
    " The releases below requested ε " +
    fmt(requested) +
    " in all; the budget is charged " +
    fmt(d.epsilon_spent) +
    ", their composition at δ = " +
    d.delta_total +
    " (" +
    d.method +
    ")."
  );
}

export function downloadLink(text, href, label) {
  const a = el("a", text);
  a.href = href;
  a.setAttribute("download", ""); // the server names the file (Content-Disposition)
  a.setAttribute("aria-label", label);
  return a;
}

let marks; // which notes the current results table needs
let HEADINGS = []; // the current results table's column headings
function estimateText(o, proportion) {
  if (o.estimate === null || o.estimate === undefined) return o.note || "–";
  let text = proportion ? pct(o.estimate) : fmt(o.estimate, 2);
  // Pinned at an edge (0 or 1, or a number question's bound) — not k-RR's small projection.
  const edges = proportion ? [0, 1] : [o.min, o.max];
  if (
    o.estimate_unclipped !== null &&
    o.estimate_unclipped !== undefined &&
    o.estimate_unclipped !== o.estimate &&
    edges.indexOf(o.estimate) !== -1
  ) {
    marks.clipped = true;
    text += " *";
  }
  return text;
}
function countText(count) {
  if (count === null) return "–";
  if (count < 0) {
    marks.negative = true;
    return count + " †";
  }
  return String(count);
}

// A result entry's shape, told apart by the keys only its JSON has: the same rule as the server's
// one reader of stored results (dpcore/central/release_entries.py, entry_from_json), so no kind
// name is read here. A number's entry has its grid; cheating detection its three parameters;
// a histogram (or a multi-select question's per-option histograms) its options.
export function entryShape(q) {
  if ("statistic" in q) return "selection";
  if ("grid_step" in q || "noisy_sum" in q) return "mean";
  if (q.cheaters) return "parameters";
  if (q.options) return "options";
  return "share";
}

// Cheating detection: π, γ, β (dpcore/central/release_parts.py); the count column shows the
// noisy YES reports (both groups) on the π row only.
const PARAMETERS = { honest_yes: "honest yes (π)", cheaters: "cheaters (γ)", honest_no: "honest no (β)" };

// The rows of one entry, each {option, noisy_count, estimate, …} as the CSV's rows (one per option,
// "mean" for a number, π/γ/β for cheating detection, "yes" for a proportion).
export function entryRows(q) {
  const shape = entryShape(q);
  if (shape === "selection") {
    // A private median/quantile (its value) or mode (its option): no count, SE or interval.
    const label = statisticLabel(q.statistic, q.q);
    const value = q.statistic === "mode" ? { estimate: null, note: q.option } : { estimate: q.value };
    return [{ option: label, noisy_count: null, proportion: false, std_error: null, mean: null, ...value }];
  }
  if (shape === "mean") return [{ ...q, option: "mean (noisy sum " + fmt(q.noisy_sum, 2) + ")", proportion: false }];
  if (shape === "parameters") {
    const c = q.noisy_counts;
    return Object.entries(PARAMETERS).map(([k, option]) => ({
      ...q[k],
      option,
      proportion: true,
      noisy_count: k === "honest_yes" ? c.g1_yes + c.g2_yes : null,
    }));
  }
  if (shape === "options") return q.options.map((o) => ({ ...o, proportion: true }));
  return [
    {
      option: "yes",
      noisy_count: q.noisy_counts.yes,
      estimate: q.estimate,
      proportion: true,
      estimate_unclipped: q.estimate_unclipped,
      std_error: q.std_error,
      ci_low: q.ci_low,
      ci_high: q.ci_high,
    },
  ];
}

function cellsOf(group, key, o) {
  if (!o.proportion) {
    return [
      group,
      key,
      o.option,
      countText(o.noisy_count),
      estimateText(o, false),
      fmt(o.std_error, 2),
      o.mean === null ? "–" : fmt(o.ci_low, 2) + "–" + fmt(o.ci_high, 2),
    ];
  }
  return [
    group,
    key,
    o.option,
    countText(o.noisy_count),
    estimateText(o, true),
    o.std_error === null ? "–" : (100 * o.std_error).toFixed(1) + " pp",
    o.ci_low === null ? "–" : (100 * o.ci_low).toFixed(1) + "–" + pct(o.ci_high),
  ];
}

function resultRows(tbody, group, q) {
  entryRows(q).forEach((o) => {
    const tr = el("tr");
    // data-label: the column's heading, shown beside the value in the phone layout (table.stack).
    cellsOf(group, q.key, o).forEach((v, i) => {
      const td = el("td", v, i >= 3 ? "num" : "");
      td.dataset.label = HEADINGS[i] || "";
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  });
}

// A selection's data-independent error bound (privacy/services/selection.py), in words.
export function selectionBound(q) {
  const e = q.expected_error || {};
  const chance = Math.round(100 * e.probability) + " %";
  if (e.measure === "count_gap")
    return (
      "with probability ≥ " + chance + " the option released has a count within " + fmt(e.bound, 1) + " of the largest."
    );
  return (
    "with probability ≥ " +
    chance +
    " the value released is within " +
    fmt(e.bound, 1) +
    " answers (in rank) of the true " +
    statisticLabel(q.statistic, q.q) +
    ", on a grid of " +
    e.candidates +
    " points."
  );
}

export function renderResults(resultsBox, rel) {
  marks = { negative: false, clipped: false };
  resultsBox.textContent = "";
  resultsBox.appendChild(el("h3", "Release " + rel.id.slice(0, 8) + " (" + params(rel) + ")"));
  const wrap = el("div", null, "table-wrap");
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", "Results of release " + rel.id.slice(0, 8));
  wrap.tabIndex = 0;
  const table = el("table", null, "release-results-table stack");
  const head = el("thead");
  const hr = el("tr");
  HEADINGS = [
    "Group",
    "Question",
    "Option",
    "Noisy count",
    "Estimate",
    "SE",
    rel.results.confidence * 100 + " % interval",
  ];
  HEADINGS.forEach((h, i) => {
    const th = el("th", h, i >= 3 ? "num" : "");
    th.scope = "col";
    hr.appendChild(th);
  });
  head.appendChild(hr);
  table.appendChild(head);
  const tbody = el("tbody");
  rel.results.questions.forEach((q) => {
    resultRows(tbody, "all", q);
  });
  (rel.results.groups || []).forEach((g) => {
    g.questions.forEach((q) => {
      resultRows(tbody, g.group, q);
    });
  });
  table.appendChild(tbody);
  wrap.appendChild(table);
  resultsBox.appendChild(wrap);
  rel.results.questions
    .filter((q) => entryShape(q) === "selection")
    .forEach((q) => {
      resultsBox.appendChild(el("p", q.key + ": " + selectionBound(q), "hint note-selection"));
    });
  if (marks.negative) {
    resultsBox.appendChild(
      el(
        "p",
        "† A noisy count below zero: the privacy noise added to this count is larger than the count itself. " +
          "It is published as drawn — rounding it up to 0 would bias every total built from it — so read it as “about zero”.",
        "hint note-negative",
      ),
    );
  }
  if (marks.clipped) {
    resultsBox.appendChild(
      el(
        "p",
        "* Pinned at 0% or 100% (or at a number question's bound): the debiased value fell outside the possible range, " +
          "which noise and randomized answers can produce when the true value is near the edge. The unclipped value is the estimate_unclipped column of the CSV.",
        "hint note-clipped",
      ),
    );
  }
}
