/* Offline answering on the respondent page (docs/respondent-pages.md#offline).
 *
 *  - `registerWorker(data)`: installs the service worker (static/js/sw.js, scope /s/) that keeps
 *    this page and its static files, so the survey opens and is answered with no network. The
 *    draws are the page's own (Web Crypto, memoized in localStorage) whether online or not.
 *  - `courier(...)`: sends a submission. The body is put in the outbox (IndexedDB, outbox.js)
 *    before it is sent and leaves it when the server has answered: with no network, a 5xx or a
 *    busy server, it waits there ("saved on this device, will be sent") and is sent again — the
 *    same bytes, the same submission_id — when the device is back online, when the page is opened
 *    again, or after a back-off while the page stays open. A survey that closed meanwhile (409)
 *    is said so; the entry is removed and nothing is counted.
 * Without IndexedDB the page sends as it always did: nothing is claimed to be saved.
 */

import { ErrorCode } from "../lib/error_codes.js";
import { request } from "../lib/http.js";
import { t } from "./i18n.js";
import { Outbox, idbStore, retryDelay, verdict } from "./outbox.js";

/** The memo's flag of a page whose submission waits in the outbox (read before anything shows). */
export const QUEUED = "~queued";

/** The request a waiting entry is sent with: the page's online request, byte for byte. */
async function post(entry) {
  const { status, data, retryAfter } = await request(entry.url, { method: "POST", text: entry.body });
  return { status, data, retryAfter };
}

/** Register the respondent pages' worker and hand it the files this page loaded, every question
 * kind's module and every one-report design's module among them (`data.kind_modules`,
 * `data.design_modules`, from the server's registries). */
export function registerWorker(data, win = globalThis.window) {
  const workers = win?.navigator?.serviceWorker;
  if (!workers || data?.preview || !data?.worker_url) return;
  workers
    .register(data.worker_url, { scope: data.worker_scope })
    .then(() => workers.ready)
    .then((registration) => {
      const loaded = win.performance.getEntriesByType("resource").map((entry) => entry.name);
      // Every kind's and design's module, loaded or not: the lists the page's kinds and draws came from.
      const modules = [...Object.values(data.design_modules ?? {}), ...Object.values(data.kind_modules ?? {})];
      const keep = [win.location.pathname + win.location.search, ...modules, ...loaded];
      registration.active?.postMessage({ keep: [...new Set(keep)] });
    })
    .catch(() => {
      /* no worker (private window, old browser): the page works online as before */
    });
}

/** The reports of a waiting body (the thank-you lists what was sent). */
const answersOf = (entry) => {
  try {
    return JSON.parse(entry.body).answers ?? {};
  } catch {
    return {};
  }
};

/**
 * The page's sender. `root`: the document; `data`: the page's data island; `memo`: its Memo, or
 * null on an invite-only page still waiting for its code (then every entry of this survey is
 * sent: the code is in the entry's body); `onSent(answers, entry)`: the thank-you; `win`: the window (timers, `online`, `indexedDB`); `store`: an
 * outbox store instead of IndexedDB (tests). Returns `{ submit(submissionId, body), resume(),
 * flush() }`.
 */
export function courier({ root, data, memo, onSent, win = globalThis.window, store: given = null }) {
  let outbox = null;
  try {
    // `given`: a test's store; reading `indexedDB` itself may throw where site data is blocked.
    const store = data.preview ? null : (given ?? idbStore(win?.indexedDB));
    outbox = store ? new Outbox(store) : null;
  } catch {
    outbox = null;
  }
  const byId = (id) => root.querySelector(`#${id}`);
  const form = byId("respond-form");
  let attempt = 0;
  let timer = null;
  let flushing = false;

  // The entries this page sends: its memo scope's, or (no code yet) this survey's.
  const mine = memo ? memo.scope : (entry) => entry.url === data.api_url;

  function showQueued() {
    memo?.set(QUEUED, "1");
    form.hidden = true;
    const box = byId("queued");
    if (box.hidden) {
      box.hidden = false;
      box.focus();
    }
  }

  function schedule(retryAfter) {
    if (timer !== null) win.clearTimeout(timer);
    timer = win.setTimeout(flush, retryDelay(attempt, retryAfter) * 1000);
    attempt += 1;
  }

  function sent(entry) {
    memo?.remove(QUEUED);
    byId("queued").hidden = true;
    onSent(answersOf(entry), entry);
  }

  function refusedLater(result) {
    memo?.remove(QUEUED);
    byId("queued").hidden = true;
    const closed = result.data?.error === ErrorCode.SURVEY_CLOSED;
    byId("queued-refused-detail").textContent = closed
      ? t("queued_closed")
      : t("queued_refused", { detail: result.data?.detail || t("server_error", { status: result.status }) });
    const box = byId("queued-refused");
    box.hidden = false;
    box.focus();
  }

  async function flush() {
    if (!outbox || flushing) return;
    flushing = true;
    timer = null;
    try {
      const entries = await outbox.pending(mine);
      if (!entries.length && memo?.get(QUEUED)) {
        // The flag outlived its entry (site data partly cleared): the form again; its memoized
        // reports are the same, so sending again sends the same answers.
        memo.remove(QUEUED);
        byId("queued").hidden = true;
        form.hidden = false;
      }
      for (const entry of entries) {
        const result = await outbox.deliver(entry, post);
        if (result.state === "sent") sent(entry);
        else if (result.state === "refused") refusedLater(result);
        else {
          showQueued();
          schedule(result.retryAfter);
        }
      }
      if (entries.length && !timer) attempt = 0;
    } catch {
      schedule(null);
    } finally {
      flushing = false;
    }
  }

  /** Send `body` (the padded JSON text) as submission `submissionId`. Resolves to `{ state,
   * status, data }`: "sent", "queued" (kept on the device, sent later), "refused" (the server's
   * refusal, to show) or "unreachable" (no network and nowhere to keep it). */
  async function submit(submissionId, body) {
    const entry = { submission_id: submissionId, scope: memo.scope, url: data.api_url, body };
    let kept = false;
    if (outbox) {
      try {
        await outbox.add(entry);
        kept = true;
      } catch {
        kept = false; // storage full or blocked: send without a net, as before
      }
    }
    if (kept) {
      flushing = true; // this send is the flush
      try {
        const result = await outbox.deliver(entry, post);
        if (result.state !== "retry") return result;
        showQueued();
        schedule(result.retryAfter);
        return { ...result, state: "queued" };
      } finally {
        flushing = false;
      }
    }
    try {
      const answer = await post(entry);
      return { state: verdict(answer.status) === "sent" ? "sent" : "refused", ...answer };
    } catch {
      return { state: "unreachable", status: 0, data: {} };
    }
  }

  /** On opening: a page whose answers wait shows so at once, and tries to send them; back online
   * (the browser's `online` event), it tries again at once. */
  function resume() {
    if (!outbox) return;
    if (memo?.get(QUEUED)) showQueued();
    win.addEventListener("online", () => {
      attempt = 0;
      flush();
    });
    flush();
  }

  return { submit, resume, flush };
}
