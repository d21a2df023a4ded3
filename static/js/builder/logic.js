/* The builder's per-question logic controls (docs/api.md#questions): required, ordered (choice)
 * and skip logic (show_if, category and number only, on an earlier category question's
 * options). The server's input serializer validates them exactly as it does an API body; this
 * module only offers the choices that can be valid and reads them back.
 */

const field = (root, path) => root.querySelector(`[data-path="${path}"]`);

/** {required, ordered?, show_if?} of a card, merged into its question body; `caps`: what its kind
 *  offers (the builder island's `kinds`, surveys.pages.researcher.builder_kinds). Skip logic is
 *  for questions asked directly (not randomized). */
export function logicValue(card, caps) {
  const out = { required: field(card, "required").checked };
  if (caps.ordered && field(card, "ordered").checked) out.ordered = true;
  const key = field(card, "show_if.key").value;
  if (!caps.randomized && key) {
    const boxes = card.querySelectorAll("[data-role=show-if-boxes] input:checked");
    out.show_if = { key, in: [...boxes].map((b) => b.value) };
  }
  return out;
}

/** Starting values: required unless the question says otherwise; its skip logic is applied by
 *  refreshShowIf once the earlier questions exist. */
export function fillLogic(card, q) {
  field(card, "required").checked = q.required !== false;
  field(card, "ordered").checked = q.ordered === true;
  card.pendingShowIf = q.show_if || null;
}

const optionsOf = (card) =>
  field(card, "options")
    .value.split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
const keyOf = (card) => field(card, "key").value.trim();

function fillBoxes(card, options, checked) {
  const box = card.querySelector("[data-role=show-if-boxes]");
  const id = field(card, "show_if.key").id;
  box.textContent = "";
  options.forEach((option, i) => {
    const label = document.createElement("label");
    label.className = "check";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.value = option;
    input.id = `${id}-${i}`;
    input.checked = checked.has(option);
    label.append(input, ` ${option}`);
    box.append(label);
  });
}

/** Rebuild every card's skip-logic choices from the category questions above it (after any
 *  edit, move or removal); a choice that no longer exists is dropped, never silently kept.
 *  A card whose choices did not change is left alone (the researcher may be ticking a box).
 *  `kinds`: the builder island's, to know which kinds' questions can be a skip-logic source. */
export function refreshShowIf(list, kinds) {
  const earlier = [];
  for (const card of list.children) {
    const select = field(card, "show_if.key");
    const pending = card.pendingShowIf;
    const wanted = pending ? pending.key : select.value;
    const checked = new Set(
      pending ? pending.in : [...card.querySelectorAll("[data-role=show-if-boxes] input:checked")].map((b) => b.value),
    );
    card.pendingShowIf = null;
    const sources = earlier.map((c) => ({ key: keyOf(c), text: field(c, "text").value.trim(), options: optionsOf(c) }));
    const key = sources.some((s) => s.key === wanted) ? wanted : "";
    const signature = JSON.stringify([sources, key]);
    if (pending || signature !== card.showIfSignature) {
      card.showIfSignature = signature;
      select.textContent = "";
      select.append(new Option("to every respondent", ""));
      for (const s of sources) {
        select.append(
          new Option(`only after an answer to “${s.key}”${s.text ? ` (${s.text.slice(0, 40)})` : ""}`, s.key),
        );
      }
      select.value = key;
      const source = sources.find((s) => s.key === key);
      fillBoxes(card, source ? source.options : [], checked);
      card.querySelector("[data-role=show-if-options]").hidden = !source;
    }
    if (kinds[field(card, "kind").value]?.show_if_source) earlier.push(card);
  }
}
