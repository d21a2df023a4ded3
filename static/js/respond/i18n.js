/* The respondent page's words, in the page's language.
 *
 * The script has no text of its own: the server renders its strings, translated, into the JSON
 * data island `respond-strings` (surveys/pages/respond_strings.py; CSP stays strict), which the page's
 * entry (respond.js) hands to `useStrings` before anything is shown. `{name}` marks a value
 * filled in here. Numbers are formatted in the page's language (<html lang>).
 */

/** `t` and `tParts` over one table of strings (the page's, below; tests/js/i18n.test.mjs). */
export function translator(strings) {
  const text = (key) => strings[key] ?? key;
  return {
    // The string `key` with `{name}` replaced by `vars.name` (the key itself if unknown).
    t: (key, vars = {}) => text(key).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m)),
    // Like `t`, as a list of strings and nodes: a `{name}` whose value is a DOM node stays a node.
    tParts: (key, vars = {}) =>
      text(key)
        .split(/(\{\w+\})/)
        .filter(Boolean)
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          return name && name in vars ? vars[name] : part;
        }),
  };
}

/** A formatter of numbers with two decimals, written the language's way (0.69 / 0,69), in Latin
 * digits as the server writes every other number on the page. */
const twoDecimalsIn = (lang) =>
  new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2, numberingSystem: "latn" });

let words = translator({});
let twoDecimals = twoDecimalsIn("en");

/** The page's strings and language (the entry reads them from the page; tests pass their own). */
export function useStrings(strings, lang = "en") {
  words = translator(strings);
  twoDecimals = twoDecimalsIn(lang);
}

export const t = (key, vars) => words.t(key, vars);
export const tParts = (key, vars) => words.tParts(key, vars);
export const fixed2 = (x) => twoDecimals.format(Number(x));

/** The language switcher is plain links (it works without JavaScript). An invitation code already
 * in the form would be lost by the new page load: carry it in the fragment (#t=…, never sent to
 * the server), where the page takes it from, as it does from an invitation link. */
export function carryCodeOnLanguageSwitch(root) {
  for (const link of root.querySelectorAll("#language-switcher a")) {
    link.addEventListener("click", () => {
      const code = root.querySelector("#id_token")?.value.trim();
      if (code) link.hash = `t=${encodeURIComponent(code)}`;
    });
  }
}
