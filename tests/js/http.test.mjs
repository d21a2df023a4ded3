// static/js/lib/http.js: JSON in and out, errors as data, the CSRF header only with a cookie.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";

import { csrfToken, errorText, request, requestHeaders, send } from "../../static/js/lib/http.js";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
  delete globalThis.document;
});

/** A fetch that records its calls and answers `status` with `body` (text). */
function fakeFetch(status, body) {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, ...init });
    return new Response(body, { status, headers: { "Content-Type": "application/json" } });
  };
  return calls;
}

describe("csrfToken", () => {
  it("reads the csrftoken cookie among others, decoded", () => {
    assert.equal(csrfToken("a=1; csrftoken=abc%3D; b=2"), "abc=");
    assert.equal(csrfToken("csrftoken=xyz"), "xyz");
    assert.equal(csrfToken("xcsrftoken=no; other=1"), null);
    assert.equal(csrfToken(""), null);
    assert.equal(csrfToken("csrftoken="), null);
  });

  it("reads document.cookie by default, and nothing without a document", () => {
    assert.equal(csrfToken(), null);
    globalThis.document = { cookie: "csrftoken=fromdoc" };
    assert.equal(csrfToken(), "fromdoc");
  });
});

describe("request", () => {
  it("respondent pages (no cookie) send no X-CSRFToken header at all", async () => {
    globalThis.document = { cookie: "" };
    const calls = fakeFetch(201, "{}");
    await request("/api/v1/surveys/x/responses/", { method: "POST", text: '{"a": 1}   ' });
    assert.deepEqual(calls[0].headers, { Accept: "application/json", "Content-Type": "application/json" });
    assert.equal(calls[0].body, '{"a": 1}   '); // a pre-serialized (padded) body is sent as is
    assert.equal(calls[0].credentials, "same-origin");
  });

  it("researcher pages (cookie) send it on unsafe methods only", async () => {
    globalThis.document = { cookie: "sessionid=s; csrftoken=tok" };
    const calls = fakeFetch(200, '{"ok": true}');
    await send("/u", { x: 1 });
    await send("/u", { x: 1 }, "PATCH");
    await request("/u");
    assert.equal(calls[0].headers["X-CSRFToken"], "tok");
    assert.equal(calls[0].method, "POST");
    assert.equal(calls[0].body, '{"x":1}');
    assert.equal(calls[1].headers["X-CSRFToken"], "tok");
    assert.equal(calls[2].headers["X-CSRFToken"], undefined);
    assert.equal(calls[2].body, undefined);
    assert.equal(calls[2].headers["Content-Type"], undefined);
  });

  it("credentials: omit sends no cookie and no token", async () => {
    globalThis.document = { cookie: "csrftoken=tok" };
    const calls = fakeFetch(200, '{"valid": true}');
    const r = await request("/check", { method: "POST", json: { token: "t" }, credentials: "omit" });
    assert.equal(calls[0].credentials, "omit");
    assert.equal(calls[0].headers["X-CSRFToken"], undefined);
    assert.deepEqual(r, { ok: true, status: 200, data: { valid: true }, retryAfter: null });
  });

  it("returns HTTP errors as data and a non-JSON body as {}", async () => {
    fakeFetch(400, '{"errors": {"answers.q": ["bad"]}}');
    assert.deepEqual(await request("/x", { method: "POST", json: {} }), {
      ok: false,
      status: 400,
      data: { errors: { "answers.q": ["bad"] } },
      retryAfter: null,
    });
    fakeFetch(502, "<html>Bad gateway</html>");
    assert.deepEqual(await request("/x"), { ok: false, status: 502, data: {}, retryAfter: null });
  });

  it("rejects on a network failure", async () => {
    globalThis.fetch = async () => {
      throw new TypeError("Failed to fetch");
    };
    await assert.rejects(request("/x"), TypeError);
  });

  it("requestHeaders: JSON accepted always, content type with a body", () => {
    assert.deepEqual(requestHeaders("GET", false, "csrftoken=t"), { Accept: "application/json" });
    assert.deepEqual(requestHeaders("DELETE", false, "csrftoken=t"), {
      Accept: "application/json",
      "X-CSRFToken": "t",
    });
  });
});

describe("errorText", () => {
  it("names each field (or not), then falls back to detail", () => {
    const data = { errors: { epsilon: ["too big"], non_field_errors: ["no"], other: ["x", "y"] } };
    assert.equal(errorText(data, { epsilon: "ε", non_field_errors: "" }), "ε: too big no other: x y");
    assert.equal(errorText({ detail: "Not found." }), "Not found.");
    assert.equal(errorText({}), "Something went wrong.");
    assert.equal(errorText(null, {}, "Nope."), "Nope.");
  });
});
