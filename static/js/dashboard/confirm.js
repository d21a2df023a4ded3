/* Survey dashboard (templates/surveys/detail.html). An ES module; no inline JS, CSP-safe.
 * A form with data-confirm="<dialog id>" asks first: its submit opens that native <dialog>
 * (Confirm / Cancel; Escape cancels) and only "Confirm" sends the form. Without JavaScript the
 * form posts directly, as before. dashboard.js (the entry) calls `mount(document)`; nothing here
 * reads the page when imported.
 */

/** Ask `form`'s dialog first (a form whose dialog is missing, or a browser without <dialog>,
 * posts directly). */
export function confirmFirst(form) {
  const dialog = form.ownerDocument.getElementById(form.dataset.confirm);
  if (!dialog || typeof dialog.showModal !== "function") return;
  let opener = null;
  form.addEventListener("submit", (event) => {
    if (form.dataset.confirmed === "yes") return;
    event.preventDefault();
    opener = event.submitter || form.querySelector("button[type=submit]");
    dialog.returnValue = "";
    dialog.showModal();
    dialog.querySelector("[data-role=cancel]").focus(); // the safe choice has the focus
  });
  dialog.querySelector("[data-role=confirm]").addEventListener("click", () => {
    form.dataset.confirmed = "yes";
    dialog.close("confirm");
    form.submit();
  });
  dialog.querySelector("[data-role=cancel]").addEventListener("click", () => dialog.close("cancel"));
  dialog.addEventListener("close", () => {
    if (dialog.returnValue !== "confirm" && opener) opener.focus();
  });
}

/** Every form with data-confirm under `root` (the document, or a test's). */
export function mount(root) {
  for (const form of root.querySelectorAll("form[data-confirm]")) confirmFirst(form);
}
