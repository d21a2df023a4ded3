// static/js/respond/outbox.js and offline.js: the submissions that wait on the device, behind the
// outbox's storage interface (a Map here; the real IndexedDB in tests/e2e/test_respondent_offline.py).
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";

import { parseHTML } from "linkedom";

import { useStrings } from "../../static/js/respond/i18n.js";
import { QUEUED, courier } from "../../static/js/respond/offline.js";
import { Outbox, entryFor, retryDelay, verdict } from "../../static/js/respond/outbox.js";
import { Memo } from "../../static/js/rr/memo.js";
import { FakeStorage, loadAllKinds } from "./support.mjs";

await loadAllKinds(); // every kind's page module, as respond.js loads them

/** The outbox's store interface on a Map (what IndexedDB keeps: a copy of each entry). */
function memoryStore() {
  const map = new Map();
  return {
    map,
    put: async (entry) => void map.set(entry.submission_id, JSON.parse(JSON.stringify(entry))),
    all: async () => [...map.values()].map((e) => JSON.parse(JSON.stringify(e))),
    delete: async (id) => void map.delete(id),
  };
}

const ID = "0b7f4c2e-0000-4000-8000-000000000001";
const BODY = '{"submission_id":"' + ID + '","randomizer":"browser","answers":{"coin":true}} ';
const ENTRY = { submission_id: ID, scope: "s1", url: "/api/v1/surveys/s/responses/", body: BODY };

describe("verdict: what the server's answer means for a waiting entry", () => {
  it("2xx is sent (201 accepted, 200 duplicate)", () => {
    assert.equal(verdict(201), "sent");
    assert.equal(verdict(200), "sent");
  });
  it("a busy or failing server is tried again", () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504]) assert.equal(verdict(status), "retry", status);
  });
  it("any other 4xx is final: sending the same body again gets the same answer", () => {
    for (const status of [400, 403, 404, 409, 413]) assert.equal(verdict(status), "refused", status);
  });
});

describe("retryDelay", () => {
  it("doubles from 5 s to 5 minutes", () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 10].map((n) => retryDelay(n)),
      [5, 10, 20, 40, 80, 160, 300, 300],
    );
  });
  it("waits as long as Retry-After asks (seconds or a date), at most an hour", () => {
    assert.equal(retryDelay(0, "120"), 120);
    assert.equal(retryDelay(6, "30"), 300); // never sooner than the back-off
    assert.equal(retryDelay(0, "99999"), 3600);
    const now = Date.parse("2026-11-26T10:00:00Z");
    assert.equal(retryDelay(0, "Thu, 26 Nov 2026 10:01:00 GMT", now), 60);
    assert.equal(retryDelay(0, "not a date", now), 5);
    assert.equal(retryDelay(0, ""), 5);
  });
});

describe("the outbox", () => {
  it("keeps only the submission id, scope, URL and body: a true answer handed to it is not stored", async () => {
    const store = memoryStore();
    const outbox = new Outbox(store);
    await outbox.add({ ...ENTRY, truth: false, coin: "heads", when: 1764150000000 });
    assert.deepEqual([...store.map.values()], [ENTRY]);
    assert.deepEqual(Object.keys(store.map.get(ID)).sort(), ["body", "scope", "submission_id", "url"]);
  });

  it("refuses an entry missing a field", () => {
    for (const name of ["submission_id", "scope", "url", "body"]) {
      assert.throws(() => entryFor({ ...ENTRY, [name]: "" }), TypeError);
    }
  });

  it("lists the entries of one scope; a malformed one is dropped", async () => {
    const store = memoryStore();
    const outbox = new Outbox(store);
    await outbox.add(ENTRY);
    await outbox.add({ ...ENTRY, submission_id: "other", scope: "s2" });
    store.map.set("bad", { submission_id: "bad", scope: "s1" });
    assert.deepEqual(await outbox.pending("s1"), [ENTRY]);
    assert.equal(store.map.has("bad"), false);
    assert.equal(store.map.has("other"), true);
  });

  it("deliver: sent and refused entries leave, failures stay; the body is posted as kept", async () => {
    const cases = [
      [async () => ({ status: 201, data: { status: "accepted" } }), "sent", false],
      [async () => ({ status: 200, data: { status: "duplicate" } }), "sent", false],
      [async () => ({ status: 409, data: { error: "survey_closed" } }), "refused", false],
      [async () => ({ status: 503, data: {}, retryAfter: "30" }), "retry", true],
      [
        async () => {
          throw new TypeError("Failed to fetch");
        },
        "retry",
        true,
      ],
    ];
    for (const [post, state, stays] of cases) {
      const store = memoryStore();
      const outbox = new Outbox(store);
      await outbox.add(ENTRY);
      const seen = [];
      const result = await outbox.deliver(ENTRY, async (entry) => {
        seen.push(entry);
        return post();
      });
      assert.equal(result.state, state);
      assert.equal(store.map.has(ID), stays, state);
      assert.deepEqual(seen, [ENTRY]);
    }
  });
});

const HTML = `<!doctype html><html><body>
<div id="queued" hidden tabindex="-1" role="status"><h2>Saved on this device — will be sent</h2></div>
<div id="queued-refused" hidden tabindex="-1" role="alert"><p id="queued-refused-detail"></p></div>
<form id="respond-form"></form></body></html>`;

describe("the courier: sending now or later", () => {
  let page;
  let win;
  let timers;
  let memo;
  let sentAnswers;
  let calls;
  let answer; // what the fake network does next: a function returning a Response, or throwing
  const realFetch = globalThis.fetch;

  beforeEach(() => {
    useStrings({
      queued_closed: "The survey closed before your answers could be sent.",
      queued_refused: "Not accepted: {detail}",
      server_error: "error {status}",
    });
    page = parseHTML(HTML);
    timers = [];
    win = {
      listeners: {},
      addEventListener(type, fn) {
        (this.listeners[type] ??= []).push(fn);
      },
      setTimeout: (fn, ms) => timers.push({ fn, ms }),
      clearTimeout: () => {},
    };
    memo = new Memo(new FakeStorage(), "s1");
    sentAnswers = [];
    calls = [];
    globalThis.fetch = async (url, init) => {
      calls.push({ url, body: init.body, headers: init.headers, method: init.method });
      return answer();
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const json =
    (status, value, headers = {}) =>
    () =>
      new Response(JSON.stringify(value), { status, headers: { "Content-Type": "application/json", ...headers } });
  const offline = () => () => {
    throw new TypeError("Failed to fetch");
  };
  const make = (store) =>
    courier({
      root: page.document,
      data: { api_url: ENTRY.url, preview: false },
      memo,
      win,
      store,
      onSent: (answers) => sentAnswers.push(answers),
    });
  const $ = (sel) => page.document.querySelector(sel);

  it("online: sent at once, nothing left on the device", async () => {
    const store = memoryStore();
    answer = json(201, { status: "accepted" });
    const result = await make(store).submit(ID, BODY);
    assert.equal(result.state, "sent");
    assert.equal(store.map.size, 0);
    assert.equal(memo.get(QUEUED), null);
    assert.equal(calls.length, 1);
  });

  it("offline: kept and said so; back online, the same bytes are sent and the thank-you shown", async () => {
    const store = memoryStore();
    answer = offline();
    const mail = make(store);
    const result = await mail.submit(ID, BODY);
    assert.equal(result.state, "queued");
    assert.deepEqual([...store.map.values()], [ENTRY]);
    assert.equal($("#queued").hidden, false);
    assert.equal($("#respond-form").hidden, true);
    assert.equal(memo.get(QUEUED), "1");
    assert.equal(timers.length, 1);
    assert.equal(timers[0].ms, 5000);

    // A reload: a new page, the same device.
    page = parseHTML(HTML);
    const again = make(store);
    answer = offline();
    again.resume();
    assert.equal($("#queued").hidden, false); // said at once, before the outbox is read
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(store.map.size, 1);

    answer = json(200, { status: "duplicate" });
    for (const fn of win.listeners.online) fn();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(store.map.size, 0);
    assert.deepEqual(sentAnswers, [{ coin: true }]);
    assert.equal($("#queued").hidden, true);
    assert.equal(memo.get(QUEUED), null);
    const bodies = calls.map((c) => c.body);
    assert.ok(
      bodies.every((b) => b === BODY),
      "every attempt sends the same bytes",
    );
    assert.ok(calls.every((c) => c.url === ENTRY.url && c.method === "POST"));
    assert.deepEqual(calls.at(-1).headers, calls[0].headers);
  });

  it("a 503 with Retry-After waits as asked; the entry stays", async () => {
    const store = memoryStore();
    answer = json(503, { error: "unavailable" }, { "Retry-After": "120" });
    const result = await make(store).submit(ID, BODY);
    assert.equal(result.state, "queued");
    assert.equal(store.map.size, 1);
    assert.equal(timers.at(-1).ms, 120_000);
  });

  it("a survey closed while the answer waited: told, not counted, the entry removed", async () => {
    const store = memoryStore();
    answer = offline();
    const mail = make(store);
    await mail.submit(ID, BODY);
    answer = json(409, { error: "survey_closed", detail: "This survey is closed." });
    await mail.flush();
    assert.equal(store.map.size, 0);
    assert.deepEqual(sentAnswers, []);
    assert.equal($("#queued").hidden, true);
    assert.equal($("#queued-refused").hidden, false);
    assert.equal($("#queued-refused-detail").textContent, "The survey closed before your answers could be sent.");
    assert.equal(memo.get(QUEUED), null);
  });

  it("another refusal is shown with the server's words", async () => {
    const store = memoryStore();
    answer = offline();
    const mail = make(store);
    await mail.submit(ID, BODY);
    answer = json(409, { error: "token_used", detail: "This invitation was already used." });
    await mail.flush();
    assert.equal($("#queued-refused-detail").textContent, "Not accepted: This invitation was already used.");
  });

  it("a refusal at once (400) is the page's to show: nothing waits", async () => {
    const store = memoryStore();
    answer = json(400, { errors: { "answers.coin": ["bad"] } });
    const result = await make(store).submit(ID, BODY);
    assert.equal(result.state, "refused");
    assert.equal(result.status, 400);
    assert.equal(store.map.size, 0);
    assert.equal($("#queued").hidden, true);
  });

  it("a flag without its entry (site data partly cleared) gives the form back", async () => {
    const store = memoryStore();
    memo.set(QUEUED, "1");
    $("#respond-form").hidden = true;
    make(store).resume();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal($("#respond-form").hidden, false);
    assert.equal($("#queued").hidden, true);
    assert.equal(memo.get(QUEUED), null);
  });

  it("an invite-only page still waiting for its code sends this survey's entries, whatever their scope", async () => {
    const store = memoryStore();
    const outbox = new Outbox(store);
    await outbox.add({ ...ENTRY, scope: "s1.tagA" });
    await outbox.add({ ...ENTRY, submission_id: "elsewhere", scope: "s9", url: "/api/v1/surveys/other/responses/" });
    answer = json(201, { status: "accepted" });
    const seen = [];
    courier({
      root: page.document,
      data: { api_url: ENTRY.url, preview: false },
      memo: null,
      win,
      store,
      onSent: (answers, entry) => seen.push([answers, entry.scope]),
    }).resume();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, [[{ coin: true }, "s1.tagA"]]);
    assert.deepEqual([...store.map.keys()], ["elsewhere"]);
    assert.deepEqual(
      calls.map((c) => c.url),
      [ENTRY.url],
    );
  });

  it("without IndexedDB nothing is claimed to be saved: unreachable, as before", async () => {
    answer = offline();
    const mail = courier({
      root: page.document,
      data: { api_url: ENTRY.url, preview: false },
      memo,
      win, // no indexedDB
      onSent: () => {},
    });
    const result = await mail.submit(ID, BODY);
    assert.equal(result.state, "unreachable");
    assert.equal($("#queued").hidden, true);
    assert.equal(memo.get(QUEUED), null);
  });

  it("the researcher's preview never uses the outbox", async () => {
    const store = memoryStore();
    answer = offline();
    const mail = courier({
      root: page.document,
      data: { api_url: null, preview: true },
      memo,
      win,
      store,
      onSent() {},
    });
    mail.resume();
    assert.equal(store.map.size, 0);
    assert.equal(win.listeners.online, undefined);
  });
});
