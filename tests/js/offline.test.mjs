// static/js/respond/offline.js registerWorker: the page hands the respondent pages' worker what it
// loaded, every question kind's module and every one-report design's module (the data island's
// `kind_modules` and `design_modules`, from the server's registries), so a page opened once
// answers offline whatever kinds and designs it holds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { registerWorker } from "../../static/js/respond/offline.js";
import { DESIGN_MODULES, KIND_MODULES } from "./support.mjs";

/** A window whose worker registers at once and records what it was sent. */
function fakeWindow(loaded) {
  const sent = [];
  const registration = { active: { postMessage: (message) => sent.push(message) } };
  const serviceWorker = { register: async () => registration, ready: Promise.resolve(registration) };
  return {
    sent,
    navigator: { serviceWorker },
    location: { pathname: "/s/abc/", search: "?lang=es" },
    performance: { getEntriesByType: (type) => (type === "resource" ? loaded.map((name) => ({ name })) : []) },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const addresses = Object.fromEntries(Object.keys(KIND_MODULES).map((n) => [n, `/static/js/respond/kinds/${n}.js`]));
const designs = Object.fromEntries(Object.keys(DESIGN_MODULES).map((n) => [n, `/static/js/rr/designs/${n}.js`]));
const data = { worker_url: "/s/sw.js", worker_scope: "/s/", kind_modules: addresses, design_modules: designs };

describe("registerWorker", () => {
  it("hands the worker the page, every kind's and design's module and what the page loaded, once each", async () => {
    const win = fakeWindow(["http://x/static/js/respond.js", "/static/js/respond/kinds/number.js"]);
    registerWorker(data, win);
    await settle();
    assert.equal(win.sent.length, 1);
    const keep = win.sent[0].keep;
    assert.equal(keep[0], "/s/abc/?lang=es");
    for (const address of [...Object.values(addresses), ...Object.values(designs)])
      assert.ok(keep.includes(address), address);
    assert.ok(keep.includes("http://x/static/js/respond.js"));
    assert.equal(new Set(keep).size, keep.length);
  });
  it("registers nothing in the researcher's preview", async () => {
    const win = fakeWindow([]);
    registerWorker({ ...data, preview: true }, win);
    await settle();
    assert.deepEqual(win.sent, []);
  });
});
