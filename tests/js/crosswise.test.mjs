// static/js/builder/crosswise.js (issues 21.9 and 22.9): the library check of a crosswise
// statement in each language, the prevalence filled in when Crosswise is chosen, and the
// deniability sentence about the revealing answer. Run: `npm test` (node --test tests/js/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  checkStatement,
  deniabilitySentence,
  libraryEntry,
  prevalenceOnDesignChange,
} from "../../static/js/builder/crosswise.js";

// The shape of surveys/innocuous.py's INNOCUOUS_STATEMENTS as the builder's data island sends it.
const LIBRARY = [
  {
    id: "mother",
    text: "My mother was born in January, February or March.",
    prevalence: 0.25,
    source: "Jann et al. (2012)",
    note: "",
    texts: { en: "My mother was born in January, February or March.", es: "Mi madre nació en enero, febrero o marzo." },
  },
  {
    id: "house",
    text: "The first digit of my house number is 1.",
    prevalence: Math.log10(2),
    source: "Diekmann (2012)",
    note: "",
    texts: { en: "The first digit of my house number is 1.", es: "La primera cifra del número de mi casa es 1." },
  },
];
// surveys.designs.starting_designs(): the unrelated question's harmless 50–50 question.
const STARTING = { crosswise: { innocuous_prevalence: 0.25 }, unrelated_question: { innocuous_prevalence: 0.5 } };

describe("checkStatement: a library statement in that language with its source prevalence", () => {
  it("verifies the library's statement, spacing and case aside", () => {
    assert.equal(
      checkStatement(LIBRARY, {
        text: " my mother was born in January,  February or March.",
        language: "en",
        prevalence: 0.25,
      }).verified,
      true,
    );
    assert.equal(
      checkStatement(LIBRARY, { text: "Mi madre nació en enero, febrero o marzo.", language: "es", prevalence: 0.25 })
        .verified,
      true,
    );
  });
  it("flags a translation that is true for everyone (the attack of issue 21.9)", () => {
    const check = checkStatement(LIBRARY, { text: "Tengo un nombre.", language: "es", prevalence: 0.25 });
    assert.equal(check.verified, false);
    assert.match(check.reason, /^Unverified/);
  });
  it("flags the English statement offered as the Spanish one, and a changed prevalence", () => {
    assert.equal(checkStatement(LIBRARY, { text: LIBRARY[0].text, language: "es", prevalence: 0.25 }).verified, false);
    const changed = checkStatement(LIBRARY, { text: LIBRARY[0].text, language: "en", prevalence: 0.4 });
    assert.equal(changed.verified, false);
    assert.match(changed.reason, /0\.250/);
    assert.equal(checkStatement(LIBRARY, { text: LIBRARY[0].text, language: "en", prevalence: null }).verified, false);
  });
  it("finds a library entry in any language when none is given", () => {
    assert.equal(libraryEntry(LIBRARY, "La primera cifra del número de mi casa es 1.")?.id, "house");
    assert.equal(libraryEntry(LIBRARY, ""), null);
  });
});

// The designs as the builder's data island describes them (surveys.definitions.question_designs
// builder_designs, each from its registry entry's describe()), reduced to what is read here:
// tests/surveys/pages/test_researcher.py checks the registry gives these params and flags.
const param = (name) => ({ name });
const DESIGNS = {
  crosswise: { name: "crosswise", paired: true, params: [param("innocuous_prevalence"), param("innocuous_text")] },
  unrelated_question: {
    name: "unrelated_question",
    paired: false,
    params: [param("p"), param("innocuous_prevalence")],
  },
  warner: { name: "warner", paired: false, params: [param("p")] },
  forced_response: {
    name: "forced_response",
    paired: false,
    params: [param("p_truth"), param("p_yes"), param("p_no")],
  },
  unrelated_question_unknown: {
    name: "unrelated_question_unknown",
    paired: false,
    params: [param("groups"), param("innocuous_prevalence_min"), param("innocuous_text")],
  },
};

describe("prevalenceOnDesignChange (issue 22.9: Crosswise was filled with 0.5)", () => {
  it("fills the chosen statement's prevalence, never the unrelated question's 0.5", () => {
    assert.equal(
      prevalenceOnDesignChange(DESIGNS.crosswise, { library: LIBRARY, text: LIBRARY[0].text, starting: STARTING }),
      0.25,
    );
    assert.equal(
      prevalenceOnDesignChange(DESIGNS.crosswise, { library: LIBRARY, text: LIBRARY[1].text, starting: STARTING }),
      Math.log10(2),
    );
    assert.equal(
      prevalenceOnDesignChange(DESIGNS.crosswise, { library: LIBRARY, text: "my own", starting: STARTING }),
      0.25,
    );
  });
  it("gives the unrelated question its own starting value and leaves other designs alone", () => {
    assert.equal(
      prevalenceOnDesignChange(DESIGNS.unrelated_question, { library: LIBRARY, text: "", starting: STARTING }),
      0.5,
    );
    assert.equal(prevalenceOnDesignChange(DESIGNS.warner, { library: LIBRARY, text: "", starting: STARTING }), null);
    // A statement without a known prevalence (its bounds are drawn per group), and no design.
    const unknown = DESIGNS.unrelated_question_unknown;
    assert.equal(
      prevalenceOnDesignChange(unknown, { library: LIBRARY, text: LIBRARY[0].text, starting: STARTING }),
      null,
    );
    assert.equal(prevalenceOnDesignChange(undefined, { library: LIBRARY, text: "", starting: STARTING }), null);
  });
});

describe("deniabilitySentence: about the revealing answer", () => {
  // Crosswise p = ¼, prior 0.1: P(trait | SAME) = 0.1·¼/(0.1·¼ + 0.9·¾) = 0.0357,
  // P(trait | DIFFERENT) = 0.1·¾/(0.1·¾ + 0.9·¼) = 0.25 (Bayes, by hand).
  const crosswise = {
    deniability: 0.025 / 0.7,
    prior: 0.1,
    revealing_report: false,
    revealing_deniability: 0.075 / 0.3,
  };
  it("names DIFFERENT for a crosswise design with p < ½ (10% → 25%, not 3.6%)", () => {
    const text = deniabilitySentence("yes_no", DESIGNS.crosswise, crosswise);
    assert.match(text, /^Deniability: a DIFFERENT answer moves a 10% prior to 25\.0%/);
    assert.match(text, /a SAME answer lowers it to 3\.6%/);
  });
  it("names a recorded YES for the coin (yes is revealing)", () => {
    const coin = { deniability: 0.25, prior: 0.1, revealing_report: true, revealing_deniability: 0.25 };
    assert.equal(
      deniabilitySentence("yes_no", DESIGNS.forced_response, coin),
      "Deniability: a recorded YES moves a 10% prior to 25.0%.",
    );
    assert.equal(
      deniabilitySentence("multi", DESIGNS.forced_response, coin),
      "Deniability: a ticked box moves a 10% prior to 25.0%.",
    );
  });
  it("keeps the k-RR sentence for choice questions", () => {
    assert.equal(
      deniabilitySentence("choice", undefined, { deniability: 0.5, prior: 1 / 3 }),
      "Deniability: a recorded option moves a 33% prior to 50.0%.",
    );
  });
  it("says a recorded option for a kind reporting an option, even when OUE's preview names a revealing report", () => {
    const oue = { deniability: 0.4, prior: 1 / 3, revealing_report: true, revealing_deniability: 0.4 };
    assert.equal(
      deniabilitySentence("choice", undefined, oue, { reportsAnOption: true }),
      "Deniability: a recorded option moves a 33% prior to 40.0%.",
    );
  });
});
