/* The releases panel's history table (releases/panel.js). */

import { downloadLink as link, el, params } from "./results.js";

// The column heading beside each value in the phone layout (table.stack, static/css/site.css).
const labelled = (td, label) => {
  td.dataset.label = label;
  return td;
};
/** The release history in `history` (a tbody): each release's row, its downloads when done; a
 * pending or running release is handed to `poll`, a done one's Show button to `show`. */
export function renderHistory(history, releases, { poll, show }) {
  history.textContent = "";
  if (!releases.length) {
    const tr = el("tr");
    const td = el("td", "No releases yet.");
    td.colSpan = 5;
    tr.appendChild(td);
    history.appendChild(tr);
    return;
  }
  releases.forEach((rel) => {
    const tr = el("tr");
    tr.appendChild(labelled(el("td", new Date(rel.created_at).toLocaleString()), "Requested"));
    tr.appendChild(labelled(el("td", rel.mechanism), "Mechanism"));
    tr.appendChild(
      labelled(
        el("td", params(rel) + " · " + rel.questions.join(", ") + (rel.group_by ? " by " + rel.group_by : "")),
        "Parameters",
      ),
    );
    const st = labelled(el("td"), "Status");
    st.appendChild(
      el(
        "span",
        rel.status + (rel.status === "failed" && !rel.charged ? " (refunded)" : ""),
        "status status-" + rel.status,
      ),
    );
    tr.appendChild(st);
    const links = labelled(el("td"), "Downloads");
    if (rel.status === "done") {
      const showButton = el("button", "Show", "link");
      showButton.type = "button";
      showButton.setAttribute("aria-label", "Show release " + rel.id.slice(0, 8));
      showButton.addEventListener("click", () => {
        show(rel.url);
      });
      links.appendChild(showButton);
      links.appendChild(document.createTextNode(" "));
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
