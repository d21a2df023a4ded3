/* The releases panel's request form (releases/panel.js): the mechanism and its parameters, the
 * questions and the group-by, read as the API's request body. */

/** The mechanism ticked (laplace, gaussian-eps or gaussian-rho). */
export function chosenMechanism(form) {
  const checked = form.querySelector("input[name=mechanism]:checked");
  return checked ? checked.value : "laplace";
}

/** Only the ticked mechanism's parameters are shown. */
export function showMechanismParams(form) {
  const m = chosenMechanism(form);
  const show = { epsilon: m !== "gaussian-rho", delta: m === "gaussian-eps", rho: m === "gaussian-rho" };
  Object.keys(show).forEach((k) => {
    const label = form.querySelector("[data-param=" + k + "]");
    if (label) label.hidden = !show[k];
  });
}

// The group-by question cannot be released within its own groups (the API answers 400): leave
// it out by itself, say why, and put it back when the grouping changes.
export function leaveOutGroupBy(form) {
  const g = form.elements.group_by.value;
  Array.prototype.forEach.call(form.querySelectorAll("input[name=questions]"), (box) => {
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

/** The release request the form describes (preview and release alike). */
export function requestBody(form) {
  const m = chosenMechanism(form);
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
  out.questions = Array.prototype.filter
    .call(form.querySelectorAll("input[name=questions]"), (c) => {
      return c.checked;
    })
    .map((c) => {
      return c.value;
    });
  const g = form.elements.group_by.value;
  if (g) out.group_by = g;
  return out;
}
