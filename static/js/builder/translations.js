/* The builder's languages and translations (docs/translations.md#builder).
 *
 * The survey is written in its default language (the first of `languages`); every other
 * language needs every respondent-facing text translated: the title, the description, each
 * question's text, each option's label and a design's innocuous statement (crosswise, unknown
 * prevalence: the designs whose kind translates it, from the registry). For each
 * added language this panel shows each of those texts next to a field for its translation.
 * Option VALUES are never translated: a translation maps each stored option to its label.
 * The server checks completeness and names the missing field ("translations.es.questions.q1
 * .text"); each field here carries that path, so builder.js shows the error next to it.
 */

import { checkStatement, libraryEntry } from "./crosswise.js";

const RTL = new Set(["ar", "he", "fa", "ur"]);

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// {"title": …, "questions": {key: {"text", "options": {o: label}}}} ⇄ {"title", "questions.key.text", …}
function flatten(entry, prefix = "", out = {}) {
  for (const [k, v] of Object.entries(entry || {})) {
    if (v && typeof v === "object") flatten(v, `${prefix}${k}.`, out);
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

/** The texts to translate, in page order: {path, what, source, long, statement}.
 * `translatedFields`: design name → the design's fields that are translated. */
function rows(survey, translatedFields) {
  const out = [{ path: "title", what: "Title", source: survey.title, long: false }];
  if (survey.description.trim())
    out.push({ path: "description", what: "Description", source: survey.description, long: true });
  survey.questions.forEach((q, i) => {
    const base = `questions.${q.key}`;
    out.push({ path: `${base}.text`, what: `Question ${i + 1}`, source: q.text, long: true });
    for (const option of q.options || []) {
      out.push({
        path: `${base}.options.${option}`,
        what: `Question ${i + 1}, option`,
        source: option,
        long: false,
        key: [q.key, option],
      });
    }
    // The design's own texts (a crosswise or unknown-prevalence design's innocuous statement):
    // which ones, the registry says (each kind's translated_design_fields, via the island).
    for (const name of translatedFields[q.design?.name] || []) {
      const prevalence = q.design.innocuous_prevalence;
      out.push({
        path: `${base}.${name}`,
        what: `Question ${i + 1}, innocuous statement`,
        source: q.design[name] || "",
        long: false,
        // A known prevalence is checked against the statement library in each language.
        statement: Number.isFinite(prevalence) ? { prevalence } : null,
      });
    }
  });
  return out;
}

/**
 * `setupTranslations(data, form, read)`: `read()` gives the survey as the builder holds it now
 * ({title, description, questions: [{key, text, options, design}]}). Returns `{ body() }`, the
 * `languages` and `translations` fields of the API body.
 */
export function setupTranslations(data, form, read) {
  const names = new Map(data.language_choices);
  const translatedFields = data.translated_design_fields || {};
  const section = document.getElementById("translations");
  const panels = document.getElementById("tr-panels");
  const chooseDefault = document.getElementById("tr-default");
  const chooseAdd = document.getElementById("tr-add");
  const languages = [...(data.survey.languages || [])];
  const values = Object.fromEntries(
    Object.entries(data.survey.translations || {}).map(([lang, entry]) => [lang, flatten(entry)]),
  );
  const name = (code) => `${names.get(code) || code} (${code})`;
  let uid = 0;

  for (const [code] of names) chooseDefault.append(new Option(name(code), code));
  chooseDefault.value = languages[0] || "en";

  function refreshAddList() {
    const picked = chooseAdd.value; // kept across a re-render (the questions change under it)
    chooseAdd.replaceChildren(new Option("Choose a language", ""));
    for (const [code] of names)
      if (code !== chooseDefault.value && !languages.includes(code)) chooseAdd.append(new Option(name(code), code));
    chooseAdd.value = [...chooseAdd.options].some((o) => o.value === picked) ? picked : "";
  }

  // What the panels show; a re-render that would show the same is skipped, so a late timer (the
  // questions' input events, a card re-drawn) never wipes the errors a save has just put there.
  let shown = null;
  function render() {
    const survey = read();
    const signature = JSON.stringify([
      languages,
      chooseDefault.value,
      rows(survey, translatedFields).map((r) => [r.path, r.what, r.source, r.long, r.statement?.prevalence ?? null]),
    ]);
    if (signature === shown) return;
    shown = signature;
    panels.replaceChildren();
    for (const lang of languages.slice(1)) {
      const panel = el("fieldset", { class: "tr-panel", "data-lang": lang });
      panel.append(el("legend", {}, `${name(lang)}: translation of every text respondents read`));
      panel.append(el("p", { class: "field-error", "data-error-for": `translations.${lang}`, hidden: "" }));
      const grid = el("div", { class: "tr-grid" });
      grid.append(
        el("p", { class: "tr-head" }, `${name(chooseDefault.value)} (as written)`),
        el("p", { class: "tr-head" }, name(lang)),
      );
      for (const row of rows(survey, translatedFields)) {
        const path = `translations.${lang}.${row.path}`;
        uid += 1;
        const id = `tr-${uid}`;
        const source = el("div", { class: "tr-source" });
        source.append(
          el("span", { class: "tr-what" }, row.what),
          el("p", { lang: chooseDefault.value, dir: "auto" }, row.source || "—"),
        );
        const target = el("div", { class: "tr-target" });
        const input = el(row.long ? "textarea" : "input", {
          id,
          "data-path": path,
          lang,
          dir: RTL.has(lang) ? "rtl" : "auto",
          rows: "2",
        });
        if (!row.long) input.type = "text";
        input.value = values[lang]?.[row.path] ?? "";
        input.addEventListener("input", () => {
          (values[lang] ||= {})[row.path] = input.value;
        });
        target.append(
          el("label", { for: id, class: "visually-hidden" }, `${row.what} in ${names.get(lang) || lang}`),
          input,
          el("p", { class: "field-error", "data-error-for": path, hidden: "" }),
        );
        if (row.statement) statementCheck(target, input, row, lang);
        grid.append(source, target);
      }
      const remove = el(
        "button",
        { type: "button", class: "secondary", "data-remove-lang": lang },
        `Remove ${names.get(lang) || lang}`,
      );
      panel.append(grid, el("div", { class: "actions" }));
      panel.lastChild.append(remove);
      panels.append(panel);
    }
    refreshAddList();
  }

  // Issue 21.9: a translated crosswise statement is checked against the library in that
  // language (a statement true for everyone would make SAME/DIFFERENT the true answer).
  function statementCheck(target, input, row, lang) {
    const library = data.innocuous_statements || [];
    const status = el("p", { class: "help", "data-role": "statement-check" });
    const vetted = (libraryEntry(library, row.source)?.texts || {})[lang];
    const describe = () => {
      const check = checkStatement(library, {
        text: input.value,
        language: lang,
        prevalence: row.statement.prevalence,
      });
      status.textContent = check.reason;
      status.classList.toggle("unverified", !check.verified);
    };
    input.addEventListener("input", describe);
    target.append(status);
    if (vetted) {
      const use = el(
        "button",
        { type: "button", class: "secondary" },
        `Use the library's ${names.get(lang) || lang} statement`,
      );
      use.addEventListener("click", () => {
        input.value = vetted;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      target.append(use);
    }
    describe();
  }

  document.getElementById("tr-add-button").addEventListener("click", () => {
    const lang = chooseAdd.value;
    if (!lang) {
      chooseAdd.focus();
      return;
    }
    if (!languages.length) languages.push(chooseDefault.value);
    languages.push(lang);
    render();
    panels.querySelector(`[data-lang="${lang}"] [data-path]`)?.focus();
  });
  panels.addEventListener("click", (event) => {
    const lang = event.target.closest("[data-remove-lang]")?.dataset.removeLang;
    if (!lang) return;
    languages.splice(languages.indexOf(lang), 1);
    render();
    chooseAdd.focus();
  });
  chooseDefault.addEventListener("change", () => {
    if (languages.length) languages[0] = chooseDefault.value;
    const clash = languages.indexOf(chooseDefault.value, 1);
    if (clash > 0) languages.splice(clash, 1);
    render();
  });
  // The texts to translate follow the questions as they are edited (typed translations are kept
  // by field path, so renaming a question's key or an option starts its translation afresh).
  let timer = null;
  form.addEventListener("input", (event) => {
    if (section.contains(event.target)) return;
    clearTimeout(timer);
    timer = setTimeout(render, 300);
  });
  new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(render, 50);
  }).observe(document.getElementById("questions"), { childList: true });
  render();

  return {
    body() {
      const survey = read();
      const translations = {};
      for (const lang of languages.slice(1)) {
        const entry = { questions: {} };
        const given = values[lang] || {};
        for (const row of rows(survey, translatedFields)) {
          const value = (given[row.path] ?? "").trim();
          if (!value) continue; // left out: the server names it as missing
          if (row.key) {
            const q = (entry.questions[row.key[0]] ||= {});
            (q.options ||= {})[row.key[1]] = value;
          } else if (row.path.startsWith("questions.")) {
            const [, key, ...rest] = row.path.split(".");
            (entry.questions[key] ||= {})[rest.join(".")] = value;
          } else entry[row.path] = value;
        }
        translations[lang] = entry;
      }
      return {
        languages: languages.length > 1 ? [...languages] : languages.length ? [chooseDefault.value] : [],
        translations,
      };
    },
  };
}
