/* The builder's crosswise helpers (issues 21.9 and 22.9), pure so that node --test checks them
 * (tests/js/crosswise.test.mjs):
 * - `checkStatement`: is a statement the built-in library's (surveys/definitions/innocuous.py, sent in the
 *   page's data island with its vetted translations `texts`) in that language, with its source
 *   prevalence? The server applies the same rule (surveys/definitions/crosswise_statements.py) on the
 *   dashboard and in the exports; the builder only warns early.
 * - `prevalenceOnDesignChange`: the prevalence a design starts with when it is chosen (crosswise:
 *   the chosen statement's, never the unrelated question's 0.5).
 * - `deniabilitySentence`: the preview's deniability words, about the revealing answer
 *   (DIFFERENT for a crosswise design with p < ½), from the server's `revealing_*` fields.
 * Designs are the builder data's descriptions (`data.designs`, from the server's registry): what
 * they take and report decides, never their names.
 */

const normal = (text) =>
  String(text ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .join(" ")
    .toLowerCase();
const TOLERANCE = 1e-9;

/** The library entry whose statement in `language` (any language when omitted) is `text`
 *  (spacing and case aside), or null. */
export function libraryEntry(library, text, language) {
  const wanted = normal(text);
  if (!wanted) return null;
  const texts = (s) => (language ? [(s.texts || {})[language]] : Object.values(s.texts || {}));
  return library.find((s) => texts(s).some((t) => normal(t) === wanted)) || null;
}

/** {verified, entry, reason} for one language's statement. */
export function checkStatement(library, { text, language, prevalence }) {
  const entry = libraryEntry(library, text, language);
  if (!entry) {
    return {
      verified: false,
      entry: null,
      reason:
        "Unverified: not a statement of the built-in library in this language, so its prevalence and the protection it gives are your claim. The dashboard and the exports will say so.",
    };
  }
  const p = Number(entry.prevalence);
  if (
    prevalence === null ||
    prevalence === undefined ||
    prevalence === "" ||
    Math.abs(Number(prevalence) - p) > TOLERANCE
  ) {
    return {
      verified: false,
      entry,
      reason: `Unverified: a library statement, but its source gives prevalence ${p.toFixed(3)}, not ${prevalence ?? "(none)"}.`,
    };
  }
  return { verified: true, entry, reason: `Library statement. Source: ${entry.source}. ${entry.note || ""}`.trim() };
}

const takes = (design, name) => Boolean(design?.params?.some((p) => p.name === name));

/** The innocuous prevalence to fill in when `design` (its description) is chosen; null leaves the
 * field. A design taking the statement too (crosswise) gets the statement's own prevalence when it
 * is the library's, else its starting one; one taking only the prevalence (the unrelated
 * question), its starting one. */
export function prevalenceOnDesignChange(design, { library, text, starting }) {
  if (!takes(design, "innocuous_prevalence")) return null;
  const entry = takes(design, "innocuous_text") ? libraryEntry(library, text) : null;
  return entry ? Number(entry.prevalence) : Number(starting[design.name].innocuous_prevalence);
}

const REPORT_WORDS = {
  paired: { true: "a SAME answer", false: "a DIFFERENT answer" },
  yes_no: { true: "a recorded YES", false: "a recorded NO" },
  multi: { true: "a ticked box", false: "an unticked box" },
};

/** "Deniability: a DIFFERENT answer moves a 10% prior to 25.0% (…)" from a preview payload;
 * `design`: the chosen design's description (a paired one reports SAME or DIFFERENT).
 * `reportsAnOption`: the card's kind reports one of its options (the builder data's
 * `kinds[kind].reports_an_option`, from the registry): its words are about a recorded option,
 * whatever the payload says of a revealing report (an OUE preview names one). */
export function deniabilitySentence(kind, design, payload, { reportsAnOption = false } = {}) {
  if (payload.deniability == null) return "";
  const prior = `${(100 * payload.prior).toFixed(0)}%`;
  if (reportsAnOption || payload.revealing_report == null) {
    return `Deniability: a recorded option moves a ${prior} prior to ${(100 * payload.deniability).toFixed(1)}%.`;
  }
  const words = REPORT_WORDS[design?.paired ? "paired" : kind] || REPORT_WORDS.yes_no;
  const revealing = words[String(payload.revealing_report)];
  const sentence = `Deniability: ${revealing} moves a ${prior} prior to ${(100 * payload.revealing_deniability).toFixed(1)}%`;
  if (payload.revealing_report) return `${sentence}.`;
  // The other answer lowers the posterior: say which one is the revealing one and why.
  return `${sentence} (the revealing answer; ${words.true} lowers it to ${(100 * payload.deniability).toFixed(1)}%).`;
}
