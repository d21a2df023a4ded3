/* Survey dashboard (templates/surveys/detail.html). No inline JS, CSP-safe.
 * A form with data-confirm="<dialog id>" asks first: its submit opens that native <dialog>
 * (Confirm / Cancel; Escape cancels) and only "Confirm" sends the form. Without JavaScript the
 * form posts directly, as before.
 */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
    var dialog = document.getElementById(form.dataset.confirm);
    if (!dialog || typeof dialog.showModal !== "function") return;
    var opener = null;
    form.addEventListener("submit", function (event) {
      if (form.dataset.confirmed === "yes") return;
      event.preventDefault();
      opener = event.submitter || form.querySelector("button[type=submit]");
      dialog.returnValue = "";
      dialog.showModal();
      dialog.querySelector("[data-role=cancel]").focus();  // the safe choice has the focus
    });
    dialog.querySelector("[data-role=confirm]").addEventListener("click", function () {
      form.dataset.confirmed = "yes";
      dialog.close("confirm");
      form.submit();
    });
    dialog.querySelector("[data-role=cancel]").addEventListener("click", function () {
      dialog.close("cancel");
    });
    dialog.addEventListener("close", function () {
      if (dialog.returnValue !== "confirm" && opener) opener.focus();
    });
  });
})();
