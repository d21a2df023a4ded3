// The builder's error display (static/js/builder/errors.js): each server error is put beside its
// field once (the closest parent path with a slot), the summary names the question, the field
// is marked invalid and described by its message, and clearing takes it all back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { parseHTML } from "linkedom";

import { builderErrors } from "../../static/js/builder/errors.js";

function page() {
  const { document } = parseHTML(`<!doctype html><html><body>
    <div id="builder-errors" hidden></div>
    <form id="builder">
      <label for="b-title">Title</label><input id="b-title" data-path="title">
      <p class="field-error" data-error-for="title" hidden></p>
      <ol id="questions">
        <li><label for="q1-text">Question text</label><input id="q1-text" data-path="text" value="Cheated on an exam?">
          <label for="q1-p">P(forced NO)</label><input id="q1-p" data-path="design.p_no">
          <p class="field-error" data-error-for="design" hidden></p></li>
        <li><input data-path="text" value=""></li>
      </ol>
    </form></body></html>`);
  globalThis.document = document;
  const form = document.getElementById("builder");
  const list = document.getElementById("questions");
  return { document, form, list, errors: builderErrors(form, list) };
}

describe("builderErrors", () => {
  it("puts a question's error beside its nearest slot and names the question in the summary", () => {
    const { document, errors } = page();
    errors.showErrors({ "questions[0].design.p_no": ["Ensure this value is less than or equal to 1."] });
    const slot = document.querySelector('[data-error-for="design"]');
    assert.equal(slot.hidden, false);
    assert.match(slot.textContent, /1\.$/);
    const summary = document.getElementById("builder-errors");
    assert.equal(summary.hidden, false);
    assert.match(summary.textContent, /There is 1 problem to fix before saving/);
    assert.match(summary.textContent, /Question 1 \(“Cheated on an exam\?”\)/);
  });

  it("says a message once however often it comes, and marks the field invalid", () => {
    const { document, errors } = page();
    errors.showErrors({ title: ["This field may not be blank.", "This field may not be blank."] });
    const slot = document.querySelector('[data-error-for="title"]');
    const input = document.getElementById("b-title");
    assert.equal(slot.textContent.split(".").filter((s) => s.trim()).length, 1);
    assert.equal(input.getAttribute("aria-invalid"), "true");
    assert.equal(input.getAttribute("aria-describedby"), slot.id);
    assert.match(document.getElementById("builder-errors").textContent, /There are 2 problems/);
  });

  it("clears a live preview's errors on one card without touching the saved ones", () => {
    const { document, list, errors } = page();
    errors.showErrors({ title: ["This field may not be blank."] });
    const card = list.children[0];
    const unplaced = errors.placeErrors({ "design.p_no": ["Too large."] }, card, "preview");
    assert.deepEqual(unplaced, []);
    const slot = card.querySelector('[data-error-for="design"]');
    assert.equal(slot.dataset.source, "preview");
    errors.clearCardErrors(card, "preview");
    assert.equal(slot.hidden, true);
    assert.equal(slot.textContent, "");
    assert.equal(document.querySelector('[data-error-for="title"]').hidden, false);
    errors.clearErrors();
    assert.equal(document.querySelector('[data-error-for="title"]').hidden, true);
    assert.equal(document.getElementById("builder-errors").hidden, true);
    assert.equal(document.getElementById("b-title").hasAttribute("aria-invalid"), false);
  });
});
