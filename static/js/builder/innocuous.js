/* The crosswise question's innocuous statement in the builder (issues 21.9, 22.9): the library
 * picker (surveys/definitions/innocuous.py: each statement with its prevalence and source; picking one fills
 * the statement and its prevalence, "Write your own" leaves both to the researcher), the
 * verified/unverified line under it, and the prevalence filled in when Crosswise is chosen.
 */
import { checkStatement, libraryEntry, prevalenceOnDesignChange } from "./crosswise.js";

const field = (root, path) => root.querySelector(`[data-path="${path}"]`);
const language = () => document.getElementById("tr-default")?.value || "en";

export function setupInnocuousPick(card, data) {
  const library = data.innocuous_statements || [];
  const pick = card.querySelector("[data-role=innocuous-pick]");
  const source = card.querySelector("[data-role=innocuous-source]");
  if (!pick) return;
  const text = field(card, "design.innocuous_text");
  const prevalence = field(card, "design.innocuous_prevalence");
  pick.append(new Option("Write your own statement and its prevalence", ""));
  for (const s of library) pick.append(new Option(`${s.text} (p ≈ ${Number(s.prevalence).toFixed(3)})`, s.id));
  pick.value = libraryEntry(library, text.value)?.id ?? "";
  const describe = () => {
    const check = checkStatement(library, {
      text: text.value,
      language: language(),
      prevalence: prevalence.value === "" ? null : Number(prevalence.value),
    });
    source.textContent = check.reason;
    source.classList.toggle("unverified", !check.verified);
  };
  describe();
  pick.addEventListener("change", () => {
    const s = library.find((x) => x.id === pick.value);
    if (s) {
      text.value = (s.texts || {})[language()] ?? s.text;
      prevalence.value = s.prevalence;
    }
    describe();
  });
  for (const el of [text, prevalence]) el.addEventListener("input", describe);
  // Choosing a design fills the prevalence it starts with (Crosswise: the statement's own, not
  // the unrelated question's 0.5, which the crosswise model refuses).
  field(card, "design.name").addEventListener("change", (event) => {
    const design = (data.designs || []).find((d) => d.name === event.target.value);
    const p = prevalenceOnDesignChange(design, {
      library,
      text: text.value,
      starting: data.starting_designs,
    });
    if (p !== null) prevalence.value = p;
    describe();
  });
}
