/* Character counters for the builder's limited text fields (issue 22 item 11): a field with
 * data-limit="N" and a sibling <span data-counter-for="<its id>"> shows "n / N characters" and,
 * past the limit, says by how much. Nothing is cut: the browser's maxlength would silently drop
 * the end of a pasted text, so the fields have none and the server answers a 400 naming the field
 * and the limit (docs/input-limits.md).
 */

export function counterText(length, limit) {
  if (length > limit) return `${length} / ${limit} characters: ${length - limit} too many`;
  return `${length} / ${limit} characters`;
}

export function setupCounters(root) {
  for (const field of root.querySelectorAll("[data-limit]")) {
    const counter = root.querySelector(`[data-counter-for="${field.id}"]`);
    if (!counter) continue;
    const limit = Number(field.dataset.limit);
    const update = () => {
      const length = [...field.value].length; // code points, as the server counts them
      counter.textContent = counterText(length, limit);
      counter.classList.toggle("error", length > limit);
      field.setAttribute("aria-invalid", length > limit ? "true" : "false");
    };
    field.addEventListener("input", update);
    update();
  }
}

if (typeof document !== "undefined") setupCounters(document);
