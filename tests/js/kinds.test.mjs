// static/js/respond/kinds/: one module per question kind of surveys/kinds/, found by the server's
// `kind_name`, each with the same interface; the words and direct values the page reads from them.
// Each module registers itself when loaded, and the page loads the list the server's registry gives
// (`kind_modules`): the registry module names no kind (a new kind is its Python module and its
// page module, nothing else).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { useStrings } from "../../static/js/respond/i18n.js";
import { kindOf, registerKind } from "../../static/js/respond/kinds/index.js";
import { KIND_MODULES, loadAllKinds, loadKinds } from "./support.mjs";

const PYTHON_KINDS = Object.keys(KIND_MODULES);
const KINDS_JS = new URL("../../static/js/respond/kinds/", import.meta.url);

await loadAllKinds();

useStrings({
  yes: "YES",
  no: "NO",
  same: "SAME",
  different: "DIFFERENT",
  quoted: "“{label}”",
  choose: "Choose an answer.",
  enter_number: "Enter a number.",
  number_between: "Enter a number between {min} and {max}.",
  whole_number_between: "Enter a whole number between {min} and {max}.",
  tick_same_different: "Tick SAME or DIFFERENT.",
  tap_then_press: "Tap your answer, then press {button}.",
  tick_then_press: "Tick, then press {button}.",
  summary_randomized: "{report} (ε {epsilon}): {meaning}",
  summary_paired: "paired {report} (ε {epsilon}): {meaning}",
  summary_direct: "{value} — {handling}",
});

const protection = {
  handling_text: "kept as given",
  randomizer: { button: "Flip", groups: [{ how: "one" }, { how: "two" }] },
  reports: { yes: { text: "a YES reveals little" }, no: { text: "a NO reveals little" }, a: { text: "a reveals" } },
};
const question = (kind_name, extra = {}) => ({ key: "q", kind_name, protection, epsilon: 0.5, ...extra });

/** A form with one input named q-q, as the template renders it (radios: the ticked one). */
function formWith({ value = "", badInput = false, checked = null } = {}) {
  const input = { value, validity: { badInput } };
  return {
    elements: { "q-q": input },
    querySelector: (selector) => {
      assert.match(selector, /^input\[name="q-q"\]:checked$/);
      return checked === null ? null : { value: checked };
    },
  };
}
globalThis.CSS ??= { escape: (s) => s };

describe("the registry", () => {
  it("has a module for every kind of surveys/kinds/, under the kind's name", () => {
    assert.ok(PYTHON_KINDS.length >= 7, PYTHON_KINDS.join());
    for (const name of PYTHON_KINDS) assert.equal(kindOf({ kind_name: name }).name, name);
    // …and no page module without its Python kind.
    const modules = readdirSync(KINDS_JS).filter((f) => f.endsWith(".js") && f !== "index.js");
    assert.deepEqual(modules.map((f) => f.slice(0, -3)).sort(), [...PYTHON_KINDS].sort());
  });
  it("holds no hand-written list: the registry module imports no kind and names none", () => {
    const source = readFileSync(fileURLToPath(new URL("index.js", KINDS_JS)), "utf8");
    assert.doesNotMatch(source, /^\s*import\b/m);
    for (const name of PYTHON_KINDS) assert.doesNotMatch(source, new RegExp(`["'/]${name}(\\.js)?["']`), name);
  });
  it("each module registers itself under its own name, once", async () => {
    for (const [name, address] of Object.entries(KIND_MODULES)) {
      const source = readFileSync(fileURLToPath(address), "utf8");
      assert.match(source, new RegExp(`^import \\* as thisKind from "\\./${name}\\.js";`, "m"), name);
      assert.match(source, /^registerKind\(thisKind\);/m, name);
    }
    await assert.rejects(loadKinds({ yes_no: KIND_MODULES.number }), /is not the module of kind yes_no/);
    assert.throws(() => registerKind({ name: "number" }), /registered twice/);
    assert.throws(() => registerKind({}), /exports its name/);
    await loadKinds({ number: KIND_MODULES.number }); // the same module again: nothing changes
    assert.equal(kindOf({ kind_name: "number" }).name, "number");
  });
  it("never guesses a kind: a missing or unknown name throws", () => {
    assert.throws(() => kindOf({ kind: "yes_no" }), /unknown question kind/);
    assert.throws(() => kindOf({ kind_name: "toString" }), /unknown question kind/);
  });
  it("gives every kind the same interface", () => {
    for (const name of PYTHON_KINDS) {
      const kind = kindOf({ kind_name: name });
      for (const hook of ["draw", "validReport", "possibleReports", "drawnView", "problem", "summary", "missing"]) {
        assert.equal(typeof kind[hook], "function", `${name}.${hook}`);
      }
      // A kind randomized in the browser has a flipper and words for its report; one answered
      // directly reads its value from the form.
      const flips = typeof kind.setupFlipper === "function";
      assert.equal(typeof (flips ? kind.show : kind.directValue), "function", name);
    }
  });
  it("a directly answered kind draws nothing", () => {
    assert.throws(() => kindOf({ kind_name: "number" }).draw(question("number"), 1, () => {}), /answered directly/);
  });
});

describe("words", () => {
  it("yes/no and cheating detection say YES or NO and the server's sentence for it", () => {
    const yn = kindOf({ kind_name: "yes_no" });
    assert.equal(yn.show(question("yes_no"), false), "NO");
    assert.equal(yn.summary(question("yes_no"), true), "YES (ε 0.50): a YES reveals little");
    const cheater = kindOf({ kind_name: "cheater_detection" });
    assert.equal(
      cheater.summary(question("cheater_detection"), { group: 2, report: false }),
      "NO (ε 0.50): a NO reveals little",
    );
    assert.equal(cheater.missing(question("cheater_detection")), "Tap your answer, then press Flip.");
  });
  it("crosswise says SAME or DIFFERENT, with its own summary and prompt", () => {
    const cw = kindOf({ kind_name: "crosswise" });
    assert.equal(cw.summary(question("crosswise"), true), "paired SAME (ε 0.50): a YES reveals little");
    assert.equal(cw.missing(question("crosswise")), "Tick SAME or DIFFERENT.");
    assert.equal(typeof cw.setupFlipper, "undefined"); // nothing is flipped in the browser
  });
  it("choice quotes the option's label; category sums up its label", () => {
    const q = question("choice", { labels: { a: "Party A" } });
    assert.equal(kindOf(q).summary(q, "a"), "“Party A” (ε 0.50): a reveals");
    const c = question("category", { labels: { x: "Under 30" } });
    assert.equal(kindOf(c).summary(c, "x"), "Under 30 — kept as given");
    assert.equal(kindOf(c).missing(c), "Choose an answer.");
  });
});

describe("direct values", () => {
  it("crosswise reads the space-padded SAME/DIFFERENT radio; category the ticked value", () => {
    const cw = kindOf({ kind_name: "crosswise" });
    assert.equal(cw.directValue(formWith({ checked: " same " }), question("crosswise")), true);
    assert.equal(cw.directValue(formWith({ checked: "different" }), question("crosswise")), false);
    assert.equal(cw.directValue(formWith(), question("crosswise")), undefined);
    const cat = kindOf({ kind_name: "category" });
    assert.equal(cat.directValue(formWith({ checked: "x" }), question("category")), "x");
  });
  it("number: a typed number within the rules, else the rule broken (never dropped)", () => {
    const num = kindOf({ kind_name: "number" });
    const q = question("number", { min: 0, max: 10, integer: true });
    assert.equal(num.directValue(formWith({ value: "7" }), q), 7);
    assert.equal(num.problem(formWith({ value: "7" }), q), "");
    assert.equal(num.directValue(formWith({ value: "" }), q), undefined);
    assert.equal(num.problem(formWith({ value: "" }), q), "");
    assert.equal(num.problem(formWith({ value: "7.5" }), q), "Enter a whole number between 0 and 10.");
    assert.equal(num.directValue(formWith({ value: "11" }), q), undefined);
    assert.equal(num.problem(formWith({ value: "", badInput: true }), q), "Enter a whole number between 0 and 10.");
    const open = question("number", { min: null, max: 10, integer: false });
    assert.equal(num.problem(formWith({ value: "12" }), open), "Enter a number.");
    assert.equal(num.missing(open), "Enter a number.");
  });
});
