// The builder's design chooser (static/js/builder/recommend.js, issue 26.1): which previews it
// asks about, and the sentence it writes from the server's figures (none computed here).
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { recommendRequest, recommendSentence } from "../../static/js/builder/recommend.js";

const KINDS = { choice: { design: "fixed" }, yes_no: { design: "select" }, category: { design: null } };
const OPTIONS = Array.from({ length: 20 }, (_, i) => `o${i}`);

describe("recommendRequest", () => {
  it("asks for a k-option kind with its ε, k and planned n", () => {
    const detail = { kind: "choice", design: { name: "k_rr", epsilon: 1 }, options: OPTIONS, planned_n: 1000 };
    assert.deepEqual(recommendRequest(detail, KINDS), {
      kind: "choice",
      options: 20,
      epsilon: 1,
      n: 1000,
      confidence: 0.95,
    });
  });

  it("asks nothing for other kinds, one option, or no ε", () => {
    assert.equal(recommendRequest({ kind: "yes_no", design: { name: "warner", p: 0.7 } }, KINDS), null);
    assert.equal(
      recommendRequest({ kind: "choice", design: { name: "k_rr", epsilon: 1 }, options: ["a"] }, KINDS),
      null,
    );
    assert.equal(
      recommendRequest({ kind: "choice", design: { name: "k_rr", epsilon: null }, options: OPTIONS }, KINDS),
      null,
    );
  });
});

describe("recommendSentence", () => {
  const payload = {
    epsilon: 1,
    options: 20,
    n: 1000,
    recommended: { name: "oue", epsilon: 1 },
    candidates: [
      { design: { name: "k_rr" }, half_width: 0.1702, rare: { half_width: 0.1642 } },
      { design: { name: "oue" }, half_width: 0.1197, rare: { half_width: 0.1189 } },
    ],
  };
  const titles = { k_rr: "k-RR", oue: "OUE" };

  it("recommends the server's choice with each design's half-width", () => {
    const text = recommendSentence(payload, titles, "k_rr");
    assert.match(text, /recommended: OUE/);
    assert.match(text, /k-RR ±17\.0 pp \(rare option ±16\.4 pp\); OUE ±12\.0 pp \(rare option ±11\.9 pp\)/);
  });

  it("says when the chosen design is already the better one", () => {
    assert.match(recommendSentence(payload, titles, "oue"), /the design chosen is the more precise/);
  });
});
