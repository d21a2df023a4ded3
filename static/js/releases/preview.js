/* The releases panel's preview (releases/panel.js): what a release would cost and how accurate
 * each estimate would be, and the server's advice (privacy.services.advice — the formulas live
 * on the server only). */

import { name as NUMBER } from "../respond/kinds/number.js";
import { el, fmt, pp, selectionBound } from "./results.js";

function isProportion(q) {
  return q.kind !== NUMBER;
}
/** A question's expected 95 % half-width, in words. */
export function halfWidth(q) {
  if (q.expected_error) return selectionBound(q); // a selection (exponential): its bound
  // Past ±100 pp an interval covers every possible share: say so rather than "±365.9 pp".
  if (isProportion(q) && q.expected_half_width >= 1) return "±100 pp or more (no information)";
  return isProportion(q) ? pp(q.expected_half_width) : "±" + fmt(q.expected_half_width, 1) + " on the mean";
}

/** The preview's cost and accuracy in `previewBox`, and the server's advice in `adviceBox`. */
export function renderPreview(previewBox, adviceBox, d) {
  const spends = d.epsilon_after - d.epsilon_spent_before;
  if (d.mechanism === "exponential") {
    renderSelectionPreview(previewBox, d, spends);
    return;
  }
  previewBox.appendChild(
    el(
      "p",
      "Cost: ε " +
        fmt(d.epsilon_cost) +
        " (adds " +
        fmt(spends) +
        " to the budget spent). Budget after: ε " +
        fmt(d.epsilon_after) +
        " of " +
        fmt(d.epsilon_total) +
        (d.fits ? "." : " — over budget, it would be refused."),
    ),
  );
  previewBox.appendChild(
    el(
      "p",
      "Noise per count: ±" +
        fmt(d.count_std_error, 1) +
        " (1 SE). Expected 95 % interval on each estimate (n ≈ " +
        Math.round(d.respondents_per_group) +
        (d.groups > 1 ? " per group" : "") +
        "):",
    ),
  );
  const ul = el("ul", null, "plain-list");
  d.questions.forEach((q) => {
    let text = q.key + ": " + halfWidth(q);
    if (!isProportion(q)) text += " (sum ±" + fmt(q.expected_sum_std_error, 1) + ", grid step " + q.grid_step + ")";
    const li = el("li", text, q.useful ? "" : "too-noisy");
    if (!q.useful) li.appendChild(el("span", " — too noisy", "warn-text"));
    ul.appendChild(li);
  });
  previewBox.appendChild(ul);
  previewBox.classList.toggle("over-budget", !d.fits);
  renderAdvice(adviceBox, d);
}

// A selection's cost and its data-independent bounds (never computed from the answers: a preview
// charges nothing, so it must reveal nothing).
function renderSelectionPreview(previewBox, d, spends) {
  previewBox.appendChild(
    el(
      "p",
      "Cost: ε " +
        fmt(d.epsilon_cost) +
        " (adds " +
        fmt(spends) +
        " to the budget spent). Budget after: ε " +
        fmt(d.epsilon_after) +
        " of " +
        fmt(d.epsilon_total) +
        (d.fits ? "." : " — over budget, it would be refused."),
    ),
  );
  const ul = el("ul", null, "plain-list");
  d.questions.forEach((q) => {
    ul.appendChild(el("li", q.key + " (ε " + fmt(q.epsilon) + "): " + selectionBound(q)));
  });
  previewBox.appendChild(ul);
  previewBox.classList.toggle("over-budget", !d.fits);
}

function renderAdvice(adviceBox, d) {
  const noisy = d.questions.filter((q) => {
    return !q.useful;
  });
  if (noisy.length) {
    const box = el("div", null, "notice warn");
    box.appendChild(
      el(
        "p",
        "Too noisy to rely on: " +
          noisy
            .map((q) => {
              return q.key + " " + halfWidth(q);
            })
            .join(", ") +
          " — wider than the ±10 pp target (±10 % of the range for a mean).",
      ),
    );
    const floorOnly = noisy.filter((q) => {
      return q.sampling_half_width > q.target_half_width;
    });
    if (floorOnly.length) {
      box.appendChild(
        el(
          "p",
          "Even with no central noise " +
            floorOnly
              .map((q) => {
                return (
                  q.key +
                  " reaches only " +
                  (isProportion(q) ? pp(q.sampling_half_width) : "±" + fmt(q.sampling_half_width, 1))
                );
              })
              .join(", ") +
            ": too few respondents" +
            (d.groups > 1 ? " per group" : "") +
            " for that precision.",
        ),
      );
    }
    box.appendChild(el("p", "Raise ε, release fewer questions" + (d.groups > 1 ? ", or drop the group-by" : "") + "."));
    adviceBox.appendChild(box);
  }
  if (d.negative_count_chance >= d.negative_count_warning) {
    adviceBox.appendChild(
      el(
        "p",
        "Many noisy counts will be negative: the noise (±" +
          fmt(d.count_std_error, 1) +
          " per count) is about as large as a typical cell (≈ " +
          Math.round(d.respondents_per_group) +
          " reports spread over the options), so about " +
          Math.round(100 * d.negative_count_chance) +
          " % of average-sized counts fall below zero.",
        "notice warn",
      ),
    );
  }
}
