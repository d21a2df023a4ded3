// The page scripts take their page and data as arguments (issue 23 item 6): every module but the
// four entries imports without a document, and each mount works on the root it is given.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { confirmFirst, mount as mountDashboard } from "../../static/js/dashboard/confirm.js";
import { plannedN, powerRequest, powerText } from "../../static/js/power/live.js";
import { mount as mountRespond } from "../../static/js/respond/page.js";
import { loadAllKinds } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

const JS = fileURLToPath(new URL("../../static/js/", import.meta.url));
// The entries find the page's root and data islands and call mount: the only modules that read
// the page when loaded. builder.js is the builder's own (branch designs). sw.js is no page module:
// the respondent pages' service worker, a classic script run in its worker (tests/js/sw.test.mjs).
const ENTRIES = new Set(["respond.js", "releases.js", "dashboard.js", "power.js", "builder.js", "sw.js"]);

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
  );
}

it("every module but the entries imports without a page (no DOM read at import)", async () => {
  assert.equal(globalThis.document, undefined);
  const modules = files(JS).filter((path) => !ENTRIES.has(relative(JS, path)));
  assert.ok(modules.length >= 20, modules.length);
  for (const path of modules) await import(pathToFileURL(path).href);
});

/** A minimal event target: listeners by type, `fire(type, event)` calls them. */
function target(extra = {}) {
  const listeners = {};
  return {
    ...extra,
    addEventListener: (type, fn) => (listeners[type] ??= []).push(fn),
    fire: (type, event = {}) => (listeners[type] ?? []).forEach((fn) => fn(event)),
  };
}

describe("dashboard: a form with data-confirm asks its dialog first", () => {
  function page() {
    const confirm = target();
    const cancel = target({ focused: false, focus: () => (cancel.focused = true) });
    const dialog = target({
      showModal: () => (dialog.open = true),
      close: (value) => {
        dialog.open = false;
        dialog.returnValue = value;
        dialog.fire("close");
      },
      querySelector: (s) => (s === "[data-role=confirm]" ? confirm : cancel),
    });
    const opener = { focused: false, focus: () => (opener.focused = true) };
    const form = target({
      dataset: { confirm: "delete-dialog" },
      submitted: 0,
      submit: () => (form.submitted += 1),
      querySelector: () => opener,
      ownerDocument: { getElementById: (id) => (id === "delete-dialog" ? dialog : null) },
    });
    const root = { querySelectorAll: (s) => (s === "form[data-confirm]" ? [form] : []) };
    return { root, form, dialog, confirm, cancel, opener };
  }

  it("holds the submit, opens the dialog with Cancel focused; Confirm sends the form once", () => {
    const { root, form, dialog, confirm, cancel } = page();
    mountDashboard(root);
    let prevented = false;
    form.fire("submit", { preventDefault: () => (prevented = true) });
    assert.equal(prevented, true);
    assert.equal(dialog.open, true);
    assert.equal(cancel.focused, true);
    assert.equal(form.submitted, 0);
    confirm.fire("click");
    assert.equal(form.submitted, 1);
    assert.equal(form.dataset.confirmed, "yes");
  });

  it("Cancel closes the dialog, sends nothing and gives the focus back", () => {
    const { root, form, dialog, cancel, opener } = page();
    mountDashboard(root);
    form.fire("submit", { preventDefault: () => {} });
    cancel.fire("click");
    assert.equal(dialog.open, false);
    assert.equal(form.submitted, 0);
    assert.equal(opener.focused, true);
  });

  it("a form whose dialog is missing posts directly", () => {
    const { form } = page();
    form.ownerDocument = { getElementById: () => null };
    confirmFirst(form);
    let prevented = false;
    form.fire("submit", { preventDefault: () => (prevented = true) });
    assert.equal(prevented, false);
  });
});

describe("power: the request for a design preview", () => {
  const settings = { test: "one_sample", pi0: 0.1, pi1: 0.2 };
  it("asks for the preview's kind and design, with the options of a choice question", () => {
    const design = { name: "k_rr", epsilon: 1 };
    assert.deepEqual(powerRequest({ kind: "choice", design, options: ["a", "b"] }, settings), {
      kind: "choice",
      design,
      test: "one_sample",
      pi0: 0.1,
      pi1: 0.2,
      alpha: 0.05,
      options: ["a", "b"],
    });
    assert.equal("options" in powerRequest({ kind: "yes_no", design, options: [] }, settings), false);
  });
  it("asks nothing for cheating detection (planned per group in the preview)", () => {
    assert.equal(powerRequest({ kind: "yes_no", design: { name: "cheater_detection" } }, settings), null);
  });
  it("shows the power at the planned n, split in two for two samples", () => {
    assert.equal(plannedN({ planned_n: 801 }, "two_sample"), 400);
    assert.equal(plannedN({}, "one_sample"), 1000);
  });
  it("puts the exact binomial figures beside the approximation", () => {
    const atN = { power: 0.7827, power_normal: 0.8001 };
    assert.equal(
      powerText("one_sample", 360, 0.8, atN, { n: 379, n_normal: 360, search_bound: 396 }),
      "Power at n = 360: 80% (exact binomial 78%); 360 respondents for 80% (exact: 379).",
    );
    assert.equal(
      powerText("two_sample", 500, 0.8, atN, { n: 30000 }),
      "Power at 500 per group: 80% (exact binomial 78%); 30,000 per group for 80% (exact: not searched this far).",
    );
    assert.equal(powerText("one_sample", 10, 0.8, atN, null), "Power at n = 10: 80% (exact binomial 78%).");
  });
});

describe("respondent page: mount", () => {
  it("leaves the no-JavaScript page alone without data or without the form", () => {
    const asked = [];
    const root = {
      querySelector: (s) => {
        asked.push(s);
        return null;
      },
    };
    mountRespond(root, { questions: [] });
    mountRespond(root, null);
    assert.deepEqual(asked, ["#respond-form", "#respond-form"]);
  });
});
