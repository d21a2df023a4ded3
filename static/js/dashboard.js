/* Survey dashboard (templates/surveys/detail.html). An ES module; no inline JS, CSP-safe.
 * A form with data-confirm="<dialog id>" asks first: its submit opens that native <dialog>
 * (Confirm / Cancel; Escape cancels) and only "Confirm" sends the form. Without JavaScript the
 * form posts directly, as before.
 */

function confirmFirst(form) {
  const dialog = document.getElementById(form.dataset.confirm);
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

for (const form of document.querySelectorAll("form[data-confirm]")) confirmFirst(form);
