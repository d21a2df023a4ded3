/* The respondent pages' service worker (docs/respondent-pages.md#offline), served at /s/sw.js
 * (surveys/pages/offline.py) and registered with scope /s/: it controls respondent pages only.
 *
 * It keeps what a respondent page needs to open with no network — the page itself and the static
 * files it loads — and nothing else:
 *  - only GET requests of this origin: a respondent page (/s/<slug>/, with its ?lang=) or a
 *    static file (/static/…). Every other request, the API's above all, is not touched: it goes
 *    to the network as if there were no worker, and no answer of the API is ever kept (a
 *    response is private to the moment it was given; submissions wait in the page's outbox,
 *    respond/outbox.js, never here);
 *  - researcher pages live outside /s/, so they are never controlled, and a request for one
 *    (or for /s/<slug>/thanks/, /s/<slug>/submit/) is passed through;
 *  - a page the server marked `no-store` (one carrying an invitation code or typed answers) is
 *    never kept; nor is anything but a complete 200 from this origin.
 * Network first: online, a respondent always gets the current page (a closed survey says so);
 * the copy is used only when the network fails.
 */

const CACHE = "deniable-respond-v1";
const PAGE = /^\/s\/[a-z0-9_-]+\/$/i;

const keepable = (url) =>
  url.origin === self.location.origin && (PAGE.test(url.pathname) || url.pathname.startsWith("/static/"));

const storable = (response) =>
  response.ok &&
  response.status === 200 &&
  response.type === "basic" &&
  !/no-store/i.test(response.headers.get("Cache-Control") || "");

async function keep(request, response) {
  if (!storable(response)) return;
  const cache = await caches.open(CACHE);
  await cache.put(request, response);
}

async function networkFirst(request) {
  try {
    const response = await fetch(request);
    await keep(request, response.clone()).catch(() => {});
    return response;
  } catch (error) {
    const copy = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
    if (copy) return copy;
    throw error;
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys())
        if (name.startsWith("deniable-respond-") && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (!keepable(url)) return;
  event.respondWith(networkFirst(request));
});

// The page that registered this worker was loaded before the worker controlled it: it lists what
// it loaded (its own address and its static files), every question kind's module and every
// one-report design's module (its data island's `kind_modules` and `design_modules`, from the
// server's registries), and what is not kept yet is fetched once.
self.addEventListener("message", (event) => {
  const urls = Array.isArray(event.data?.keep) ? event.data.keep : [];
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      for (const address of urls.slice(0, 200)) {
        let url;
        try {
          url = new URL(address, self.location.origin);
        } catch {
          continue;
        }
        url.hash = "";
        if (!keepable(url) || (await cache.match(url.href, { ignoreVary: true }))) continue;
        try {
          await keep(new Request(url.href), await fetch(url.href, { credentials: "same-origin" }));
        } catch {
          /* offline already: kept the next time the page is opened online */
        }
      }
    })(),
  );
});
