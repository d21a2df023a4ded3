// The builder's power for a regression effect (static/js/power/regression.js, issue 26.5): the
// bodies it sends to POST /api/v1/designs/power/regression/ and the sentence it writes from the
// server's figures (none computed here). The figures below are the API's for the coin design
// (docs/formulas.md#regression-power: 1,772 against 354 asked directly).
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";

import { parseHTML } from "linkedom";

import { mergedErrors, mount, regressionRequests, regressionSentence } from "../../static/js/power/regression.js";

const COIN = { name: "forced_response", p_truth: 0.5, p_yes: 0.25, p_no: 0.25 };
const SETTINGS = { oddsRatio: 2, predictor: "binary", share: 0.4, pi0: 0.2, power: 0.8, n: null };

describe("regressionRequests", () => {
  it("asks for n at the target power, with the question's design and a binary predictor's share", () => {
    assert.deepEqual(regressionRequests(COIN, SETTINGS), {
      need: {
        design: COIN,
        pi0: 0.2,
        effect: { odds_ratio: 2, predictor: "binary", predictor_share: 0.4 },
        alpha: 0.05,
        power: 0.8,
      },
      at: null,
    });
  });

  it("sends no share for a continuous predictor (the API refuses one)", () => {
    const { need } = regressionRequests(COIN, { ...SETTINGS, predictor: "continuous", oddsRatio: 1.5 });
    assert.deepEqual(need.effect, { odds_ratio: 1.5, predictor: "continuous" });
  });

  it("asks for the power at n too when an n is given, and only that without a target", () => {
    const both = regressionRequests(COIN, { ...SETTINGS, n: 1000 });
    assert.equal(both.need.power, 0.8);
    assert.equal(both.at.n, 1000);
    assert.equal("power" in both.at, false);
    const only = regressionRequests(COIN, { ...SETTINGS, power: null, n: 1000 });
    assert.equal(only.need, null);
    assert.equal(only.at.n, 1000);
  });

  it("still asks with neither, so that the API names what is missing", () => {
    const { need, at } = regressionRequests(COIN, { ...SETTINGS, power: null });
    assert.equal(need.power, null);
    assert.equal(at, null);
  });
});

describe("regressionSentence", () => {
  const body = regressionRequests(COIN, SETTINGS).need;
  const needed = { ...body, n: 1772, n_direct: 354, c: 0.5, d: 0.25, method: "wald_expected_information" };

  it("says the n for the target power and the n if asked directly, in one sentence", () => {
    assert.equal(
      regressionSentence(needed, null),
      "About 1,772 respondents for 80 % power to detect an odds ratio of 2 for a binary predictor " +
        "held by 40 %; 354 if asked directly.",
    );
  });

  it("words a continuous predictor per standard deviation", () => {
    const effect = { odds_ratio: 1.5, predictor: "continuous" };
    assert.equal(
      regressionSentence({ ...needed, effect, n: 1818, n_direct: 315 }, null),
      "About 1,818 respondents for 80 % power to detect an odds ratio of 1.5 per standard deviation " +
        "of a continuous predictor; 315 if asked directly.",
    );
  });

  it("adds the power at a given n, never rounding it up to certainty", () => {
    const atN = { ...body, n: 1000, power: 0.5349, power_direct: 0.9996 };
    assert.equal(
      regressionSentence(needed, atN),
      "About 1,772 respondents for 80 % power to detect an odds ratio of 2 for a binary predictor " +
        "held by 40 %; 354 if asked directly. At 1,000 respondents: 53 % power (over 99 % if asked directly).",
    );
    assert.equal(
      regressionSentence(null, atN),
      "At 1,000 respondents, 53 % power to detect an odds ratio of 2 for a binary predictor held by 40 %; " +
        "over 99 % if asked directly.",
    );
  });
});

describe("mergedErrors", () => {
  it("keeps each field's messages once, and names a detail-only answer's", () => {
    const merged = mergedErrors([
      { errors: { "effect.odds_ratio": ["Must differ from 1 to compute a sample size."] } },
      { errors: { "effect.odds_ratio": ["other"], n: ["Ensure this value is greater than or equal to 1."] } },
      { detail: "Malformed request." },
    ]);
    assert.deepEqual(merged, {
      "effect.odds_ratio": ["Must differ from 1 to compute a sample size."],
      n: ["Ensure this value is greater than or equal to 1."],
      "": ["Malformed request."],
    });
  });
});

describe("mount: the API's errors beside the settings' fields, its answer under the question", () => {
  // The settings card and one question card, as templates/surveys/builder.html renders them.
  const HTML = `<html><body><form id="builder">
    <fieldset id="regression-settings">
      <div><input id="regression-or" value="1"><p id="e-or" data-regression-error="effect.odds_ratio" hidden></p></div>
      <div><select id="regression-predictor"><option value="binary" selected>binary</option>
        <option value="continuous">continuous</option></select></div>
      <div data-role="share"><input id="regression-share" value="0.4"></div>
      <div><input id="regression-pi0" value="0.2"><p id="e-pi0" data-regression-error="pi0" hidden></p></div>
      <div><input id="regression-power" value="0.8"></div>
      <div><input id="regression-n" value=""></div>
    </fieldset>
    <ol id="questions"><li><div data-role="regression-power"></div></li></ol>
  </form></body></html>`;
  const DATA = {
    regression_power_url: "/the-url-from-the-island/",
    regression_outcome_kind: "yes_no",
    regression_design_names: ["forced_response", "warner", "crosswise"],
  };
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  /** A fetch that answers each body with `answer(body)` → [status, payload], recording them. */
  function serve(answer) {
    const sent = [];
    globalThis.fetch = async (url, init) => {
      const body = JSON.parse(init.body);
      sent.push({ url, body });
      const [status, payload] = answer(body);
      return new Response(JSON.stringify(payload), { status, headers: { "Content-Type": "application/json" } });
    };
    return sent;
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it("puts a refused odds ratio next to its field, then the sentence once it is fixed", async () => {
    const { document, CustomEvent } = parseHTML(HTML);
    const card = document.querySelector("#questions > li");
    const box = card.querySelector("[data-role=regression-power]");
    const slot = document.querySelector("#e-or");
    const odds = document.querySelector("#regression-or");
    let sent = serve(() => [
      400,
      { errors: { "effect.odds_ratio": ["Must differ from 1 to compute a sample size."] } },
    ]);
    mount(document, DATA);
    const detail = { kind: "yes_no", question_kind: "yes_no", design: COIN, planned_n: 1000 };
    card.dispatchEvent(new CustomEvent("deniable:preview", { bubbles: true, detail }));
    await settle();
    assert.equal(sent.length, 1);
    assert.equal(sent[0].url, DATA.regression_power_url);
    assert.deepEqual(sent[0].body.design, COIN);
    assert.equal(slot.hidden, false);
    assert.equal(slot.textContent, "Must differ from 1 to compute a sample size.");
    assert.equal(odds.getAttribute("aria-invalid"), "true");
    assert.equal(odds.getAttribute("aria-describedby"), "e-or");
    assert.equal(box.textContent, "Regression power: fix the settings above.");

    odds.value = "2";
    sent = serve((body) => [200, { ...body, n: 1772, n_direct: 354 }]);
    card.dispatchEvent(new CustomEvent("deniable:preview", { bubbles: true, detail }));
    await settle();
    assert.equal(sent[0].body.effect.odds_ratio, 2);
    assert.equal(slot.hidden, true);
    assert.equal(odds.getAttribute("aria-invalid"), null);
    assert.match(box.textContent, /^About 1,772 respondents for 80 % power .*; 354 if asked directly\.$/);
  });

  it("says a design the regression cannot use under the question, and asks nothing for other kinds", async () => {
    const { document, CustomEvent } = parseHTML(HTML);
    document.querySelector("#regression-or").value = "2";
    const card = document.querySelector("#questions > li");
    const box = card.querySelector("[data-role=regression-power]");
    const sent = serve(() => [200, {}]);
    mount(document, DATA);
    // A two-group design is not in the server's list: nothing is asked (a 400 would be a console
    // error on the page), and the line says why.
    const design = { name: "cheater_detection", groups: [] };
    const detail = { kind: "yes_no", question_kind: "yes_no", design };
    card.dispatchEvent(new CustomEvent("deniable:preview", { bubbles: true, detail }));
    await settle();
    assert.equal(box.textContent, "Regression power: not for this design (its groups are planned above).");
    assert.equal(document.querySelector("#e-or").hidden, true);

    const multi = { kind: "yes_no", question_kind: "multi", design: COIN };
    card.dispatchEvent(new CustomEvent("deniable:preview", { bubbles: true, detail: multi }));
    await settle();
    assert.equal(sent.length, 0);
    assert.equal(box.textContent, "");
  });
});
