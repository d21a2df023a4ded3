/* The releases panel's request form (releases/panel.js): the mechanism and its parameters, the
 * questions and the group-by, read as the API's request body. */

/** The mechanism ticked (laplace, gaussian-eps, gaussian-rho or exponential). */
export function chosenMechanism(form) {
  const checked = form.querySelector("input[name=mechanism]:checked");
  return checked ? checked.value : "laplace";
}

/** Only the ticked mechanism's parameters are shown. */
export function showMechanismParams(form) {
  const m = chosenMechanism(form);
  const selection = m === "exponential";
  const statistic = form.elements.statistic ? form.elements.statistic.value : "median";
  const show = {
    epsilon: m !== "gaussian-rho",
    delta: m === "gaussian-eps",
    rho: m === "gaussian-rho",
    statistic: selection,
    q: selection && statistic === "quantile",
    group_by: !selection,
  };
  Object.keys(show).forEach((k) => {
    const label = form.querySelector("[data-param=" + k + "]");
    if (label) label.hidden = !show[k];
  });
}

// The group-by question cannot be released within its own groups (the API answers 400): leave
// it out by itself, say why, and put it back when the grouping changes.
export function leaveOutGroupBy(form) {
  // A selection (exponential) takes no group-by: its box is not hidden then.
  const g = chosenMechanism(form) === "exponential" ? "" : form.elements.group_by.value;
  Array.prototype.forEach.call(form.querySelectorAll("input[name=questions]"), (box) => {
    if (box.dataset.unfit) return; // left out by fitSelection (the statistic cannot take it)
    const note = form.querySelector("[data-role=group-note][data-key='" + box.value + "']");
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

// What each statistic takes (the kinds' release_selection, in data-selection on each box).
const NEEDS = { median: "quantile", quantile: "quantile", mode: "mode" };

/** The questions a selection of `statistic` can release (the others are unticked and disabled,
 * and ticked again when the mechanism changes back). */
export function fitSelection(form) {
  const selection = chosenMechanism(form) === "exponential";
  const needs = NEEDS[form.elements.statistic ? form.elements.statistic.value : "median"];
  Array.prototype.forEach.call(form.querySelectorAll("input[name=questions]"), (box) => {
    const fits = !selection || box.dataset.selection === needs;
    if (!fits && !box.dataset.unfit) {
      box.dataset.unfit = box.checked ? "yes" : "no";
      box.checked = false;
      box.disabled = true;
    } else if (fits && box.dataset.unfit) {
      box.checked = box.dataset.unfit === "yes";
      box.disabled = false;
      delete box.dataset.unfit;
    }
  });
}

function checkedQuestions(form) {
  return Array.prototype.filter
    .call(form.querySelectorAll("input[name=questions]"), (c) => {
      return c.checked;
    })
    .map((c) => {
      return c.value;
    });
}

/** The release request the form describes (preview and release alike). */
export function requestBody(form) {
  const m = chosenMechanism(form);
  if (m === "exponential") {
    const statistic = form.elements.statistic.value;
    const selection = { mechanism: m, epsilon: Number(form.elements.epsilon.value), statistic };
    if (statistic === "quantile") selection.q = Number(form.elements.q.value);
    selection.questions = checkedQuestions(form);
    return selection;
  }
  const out = { mechanism: m === "laplace" ? "laplace" : "gaussian" };
  function num(name) {
    return Number(form.elements[name].value);
  }
  if (m === "laplace") out.epsilon = num("epsilon");
  if (m === "gaussian-eps") {
    out.epsilon = num("epsilon");
    out.delta = num("delta");
  }
  if (m === "gaussian-rho") out.rho = num("rho");
  out.questions = checkedQuestions(form);
  const g = form.elements.group_by.value;
  if (g) out.group_by = g;
  return out;
}
