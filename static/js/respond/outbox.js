/* The respondent page's outbox (docs/respondent-pages.md#offline): a submission waits here, on the
 * device, until the server has answered it — sent later, when the device is back online.
 *
 * What an entry holds, and nothing else (docs/privacy-model.md; SECURITY.md, "A queued answer on
 * the device"): the submission id, the memo scope the page runs under, the API URL and the request
 * body exactly as the page sends it online — the REPORTS (never a true answer, a coin or which
 * branch a draw took), padded as online, and, on an invite-only survey, the invitation code the
 * body carries. No time is stored: the entry says nothing about when it was answered.
 *
 * Sending later is the same request as sending at once (the same URL, headers and bytes; the
 * same submission id, so the server stores it once and answers a repeat 200 "duplicate"). The
 * storage is behind a small interface (`put`, `all`, `delete`, async): IndexedDB in the browser
 * (`idbStore`), a Map in the unit tests (tests/js/outbox.test.mjs), the real IndexedDB in
 * Chromium (tests/e2e/test_respondent_offline.py).
 */

const DATABASE = "deniable-outbox";
const STORE = "submissions";
const FIELDS = ["submission_id", "scope", "url", "body"];

/** What an answer from the server means for a waiting entry: "sent" (2xx: accepted, or a
 * duplicate of one already stored), "retry" (the server could not take it now: timeouts, rate
 * limits, 5xx, a 503 with Retry-After) or "refused" (any other 4xx: a closed survey's or a used
 * invitation's 409, a 400, a 404 — sending it again would get the same answer). */
export function verdict(status) {
  if (status >= 200 && status < 300) return "sent";
  if (status === 408 || status === 425 || status === 429 || status >= 500) return "retry";
  return "refused";
}

/** Seconds before attempt number `attempt` (0, 1, …) is made again: 5 s doubling to 5 minutes,
 * or the server's Retry-After (seconds or an HTTP date) when it asks for longer, capped at an hour.
 * No jitter: the delay is the same on every device, so it tells nothing about this one. */
export function retryDelay(attempt, retryAfter = null, now = Date.now()) {
  const base = Math.min(5 * 2 ** Math.max(0, attempt), 300);
  let asked = 0;
  if (retryAfter !== null && retryAfter !== undefined && String(retryAfter).trim() !== "") {
    const text = String(retryAfter).trim();
    asked = /^\d+$/.test(text) ? Number(text) : Math.max(0, (Date.parse(text) - now) / 1000) || 0;
  }
  return Math.min(Math.max(base, asked), 3600);
}

/** The entry of one submission: only the fields above, each a string. */
export function entryFor({ submission_id, scope, url, body }) {
  const entry = { submission_id, scope, url, body };
  for (const name of FIELDS) {
    if (typeof entry[name] !== "string" || !entry[name]) throw new TypeError(`outbox entry without ${name}`);
  }
  return entry;
}

export class Outbox {
  /** `store`: `put(entry)`, `all()`, `delete(submissionId)`, each returning a promise. */
  constructor(store) {
    this.store = store;
  }

  /** Keep `entry` (entryFor's fields) until the server answers it. */
  async add(fields) {
    const entry = entryFor(fields);
    await this.store.put(entry);
    return entry;
  }

  /** The entries waiting under memo scope `scope` (another survey's or invitation's are not this
   * page's to send: each is sent by its own page), or those `scope(entry)` is true of. Entries
   * that are not well formed are dropped. */
  async pending(scope) {
    const mine = typeof scope === "function" ? scope : (entry) => entry.scope === scope;
    const out = [];
    for (const raw of await this.store.all()) {
      try {
        const entry = entryFor(raw ?? {});
        if (mine(entry)) out.push(entry);
      } catch {
        if (raw?.submission_id) await this.store.delete(raw.submission_id);
      }
    }
    return out;
  }

  remove(submissionId) {
    return this.store.delete(submissionId);
  }

  /**
   * Send one entry with `post(entry)` → `{ status, data, retryAfter }` (rejecting when the network
   * fails). Returns `{ state, status, data, retryAfter }`; `state` is verdict's, or "retry" for a
   * network failure. A sent or refused entry leaves the outbox; one to retry stays.
   */
  async deliver(entry, post) {
    let answer;
    try {
      answer = await post(entry);
    } catch {
      return { state: "retry", status: 0, data: {}, retryAfter: null };
    }
    const state = verdict(answer.status);
    if (state !== "retry") await this.remove(entry.submission_id);
    return { state, status: answer.status, data: answer.data ?? {}, retryAfter: answer.retryAfter ?? null };
  }
}

const settle = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/** A store in this origin's IndexedDB (`idb`: the browser's `indexedDB`), or null without one.
 * Each call is one transaction that has committed when its promise resolves: an entry that was
 * put survives a reload, a closed tab and a browser restart. */
export function idbStore(idb = globalThis.indexedDB) {
  if (!idb) return null;
  let opened = null;
  const open = () => {
    opened ??= new Promise((resolve, reject) => {
      const request = idb.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "submission_id" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error("the outbox database is blocked"));
    });
    return opened;
  };
  const run = async (mode, work) => {
    const db = await open();
    const tx = db.transaction(STORE, mode);
    const committed = new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("outbox transaction aborted"));
    });
    // Resolved once the transaction has committed (a put is then on disk), not at its request.
    const [result] = await Promise.all([settle(work(tx.objectStore(STORE))), committed]);
    return result;
  };
  return {
    put: (entry) => run("readwrite", (s) => s.put(entry)).then(() => undefined),
    all: () => run("readonly", (s) => s.getAll()),
    delete: (id) => run("readwrite", (s) => s.delete(id)).then(() => undefined),
  };
}
