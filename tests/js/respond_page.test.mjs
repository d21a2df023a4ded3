// The respondent page (static/js/respond/page.js) mounted on a page as the template renders it
// (linkedom, no browser): the flipper draws through the memo before anything is shown and
// forgets the truth, the crosswise question is answered in its radios (nothing drawn), a bad
// number stops the step, and the summary and the padded body carry only reports.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";

import { parseHTML } from "linkedom";

import { useStrings } from "../../static/js/respond/i18n.js";
import { mount } from "../../static/js/respond/page.js";
import { FakeStorage, loadAllKinds, queueSource, wordsFor } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

const COIN = { truth: 2 ** 52, yes: 3 * 2 ** 51 }; // forced_response(0.5, 0.25, 0.25)
const protection = (extra = {}) => ({
  handling: "randomized",
  handling_text: "kept as given",
  reports: { yes: { text: "A YES reveals little." }, no: { text: "A NO reveals little." } },
  randomizer: { kind: "coins", button: "Flip the coins" },
  ...extra,
});
const DATA = {
  access: "open",
  memo_scope: "s1",
  api_url: "/api/v1/surveys/s/responses/",
  preview: false,
  epsilon_total: 2.2,
  questions: [
    {
      key: "coin",
      text: "Did you cheat?",
      kind: "yes_no",
      kind_name: "yes_no",
      randomized: true,
      required: true,
      options: [],
      design: { name: "forced_response" },
      thresholds: COIN,
      epsilon: 1.1,
      protection: protection(),
    },
    {
      key: "pair",
      text: "Paired statements",
      kind: "yes_no",
      kind_name: "crosswise",
      randomized: true,
      required: true,
      options: [],
      design: { name: "crosswise" },
      epsilon: 1.1,
      protection: protection({ randomizer: { kind: "none" } }),
    },
    {
      key: "age",
      text: "Your age",
      kind: "number",
      kind_name: "number",
      randomized: false,
      required: false,
      options: [],
      min: 18,
      max: 99,
      integer: true,
      protection: protection({ handling: "direct" }),
    },
  ],
};

const STEP_ACTIONS = `<div class="actions js-only" hidden><button type="button" data-role="next">Next</button></div>`;
const HTML = `<!doctype html><html lang="en"><body><main>
<div id="already" hidden></div>
<div id="thanks" hidden><ul data-role="sent-list"><li data-key="coin">coin</li><li data-key="pair">pair</li><li data-key="age">age</li></ul><span id="thanks-unanswered"></span></div>
<div id="storage-blocked" hidden></div><div id="invite-refused" hidden></div>
<form id="respond-form">
<section class="card intro" id="intro"></section>
<section class="step" id="step-coin" data-key="coin"><fieldset><p class="question-text">Did you cheat?</p>
  <div class="js-only" data-role="flipper" hidden>
    <div data-role="pick">
      <button type="button" data-truth="true" aria-pressed="false">Yes</button>
      <button type="button" data-truth="false" aria-pressed="false">No</button>
      <button type="button" data-role="flip" disabled>Flip</button>
    </div>
    <div data-role="stage" hidden></div><button type="button" data-role="skip" hidden>Skip</button>
    <div data-role="result"></div>
  </div>
  <div class="nojs-only" data-role="physical"><input type="radio" name="q-coin" value="yes"><input type="radio" name="q-coin" value="no"></div>
</fieldset>${STEP_ACTIONS}</section>
<section class="step" id="step-pair" data-key="pair"><fieldset><p class="question-text">Paired</p>
  <input type="radio" name="q-pair" value=" same "><input type="radio" name="q-pair" value="different">
</fieldset>${STEP_ACTIONS}</section>
<section class="step" id="step-age" data-key="age"><fieldset><p class="question-text">Age</p>
  <input type="number" name="q-age" id="id_q-age">
</fieldset>${STEP_ACTIONS}</section>
<section class="step js-only" id="step-summary" hidden><h2>Before you send</h2>
  <ul id="summary-list"></ul><p id="summary-total"></p><div id="send-error" hidden></div>
  <button type="button" id="send-button">Send</button>
</section>
</form></main></body></html>`;

useStrings({
  yes: "YES",
  no: "NO",
  same: "SAME",
  different: "DIFFERENT",
  will_record: "{what} We will record {report}.",
  coins_yes: "Heads, heads: YES.",
  summary_randomized: "{report} (ε {epsilon}): {meaning}",
  summary_paired: "{report}, paired (ε {epsilon})",
  summary_direct: "{value}: {handling}",
  summary_unanswered: "unanswered",
  summary_total: "ε {epsilon} in all",
  whole_number_between: "a whole number between {min} and {max}",
  tap_then_press: "Tap, then press {button}.",
});

const GLOBALS = ["window", "document", "history", "CSS", "fetch"];
let saved;
let page;
let storage;
let sent;

beforeEach(() => {
  saved = Object.fromEntries(GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
  saved.crypto = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  page = parseHTML(HTML);
  storage = new FakeStorage();
  sent = [];
  const { window, document } = page;
  Object.assign(window, {
    localStorage: storage,
    scrollTo: () => {},
    matchMedia: () => ({ matches: true }), // reduced motion: the outcome is shown at once
  });
  const location = { hash: "", pathname: "/s/s/", search: "" };
  Object.defineProperty(window, "location", { value: location, configurable: true });
  // linkedom has no form.elements nor input.validity: the page reads a field by name, and a number
  // typed in a browser's number input is never "bad input" here.
  const form = document.querySelector("#respond-form");
  Object.defineProperty(form, "elements", {
    value: new Proxy(
      {},
      {
        get: (target, name) => {
          const field = form.querySelector(`[name="${String(name)}"]`);
          if (field && !field.validity) field.validity = { badInput: false };
          return field ?? undefined;
        },
      },
    ),
  });
  const set = (name, value) => Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  set("window", window);
  set("document", document);
  set("history", { replaceState: () => {} });
  set("CSS", { escape: (s) => s });
  set("fetch", async (url, init) => {
    sent.push({ url, body: init.body });
    return new Response("{}", { status: 201, headers: { "Content-Type": "application/json" } });
  });
  // A forced YES on the coin: U = truth threshold (2⁵²) lands in [truth, yes).
  set("crypto", {
    getRandomValues: queueSource(wordsFor(COIN.truth)),
    randomUUID: () => "0b7f4c2e-0000-4000-8000-000000000001",
  });
});

afterEach(() => {
  for (const [name, descriptor] of Object.entries(saved)) {
    if (descriptor) Object.defineProperty(globalThis, name, descriptor);
    else delete globalThis[name];
  }
});

const $ = (selector) => page.document.querySelector(selector);
const click = (node) => node.dispatchEvent(new page.window.Event("click", { bubbles: true }));

describe("the respondent page, mounted", () => {
  it("switches to the stepper: physical radios disabled, no-JS parts hidden", () => {
    mount(page.document, DATA);
    assert.equal($("#respond-form").classList.contains("stepper"), true);
    assert.equal($("[data-role=physical]").hidden, true);
    assert.equal($("[data-role=physical] input").disabled, true);
    assert.equal($("[data-role=flipper]").hidden, false);
  });

  it("draws once through the memo, shows the report, forgets the truth; crosswise and numbers are read from the form", async () => {
    mount(page.document, DATA);
    click($("[data-truth=false]"));
    assert.equal($("[data-role=flip]").disabled, false);
    click($("[data-role=flip]"));
    // Stored before anything is shown; the truth (NO) is nowhere.
    assert.equal(storage.getItem("deniable:s1:coin"), "true");
    assert.deepEqual(
      [...page.document.querySelectorAll("[data-truth]")].map((b) => b.getAttribute("aria-pressed")),
      ["false", "false"],
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.match($("[data-role=result]").textContent, /Heads, heads: YES\. We will record YES\./);
    assert.equal($("[data-role=pick]").hidden, true);
    // Another press draws nothing (the source would throw if asked for a word).
    click($("[data-role=flip]"));

    click($("#step-coin [data-role=next]"));
    assert.equal($("#step-pair").classList.contains("current"), true);
    $("input[name=q-pair][value=' same ']").setAttribute("checked", ""); // linkedom's :checked reads the attribute
    click($("#step-pair [data-role=next]"));
    $("#id_q-age").value = "17";
    click($("#step-age [data-role=next]"));
    assert.equal($("#step-age .js-step-error").textContent, "a whole number between 18 and 99");
    $("#id_q-age").value = "40";
    click($("#step-age [data-role=next]"));
    assert.equal($("#step-summary").classList.contains("current"), true);
    assert.deepEqual(
      [...page.document.querySelectorAll("#summary-list li")].map((li) => li.textContent),
      [
        "Did you cheat?YES (ε 1.10): A YES reveals little.",
        "Paired statementsSAME, paired (ε 1.10)",
        "Your age40: kept as given",
      ],
    );

    click($("#send-button"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(sent.length, 1);
    const body = JSON.parse(sent[0].body);
    assert.deepEqual(body.answers, { coin: true, pair: true, age: 40 });
    assert.equal(body.randomizer, "browser");
    // Padded to the longest report of each randomized question: "true" → "false", one byte each.
    assert.equal(sent[0].body.length, JSON.stringify(body).length + 2);
    assert.equal($("#thanks").hidden, false);
    assert.equal(storage.getItem("deniable:s1:~done"), "1");
  });
});
