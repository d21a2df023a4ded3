/* The one fetch helper of every page: JSON in and out, errors as data, CSRF only where it applies.
 *
 * URLs are never built here: each page takes them from its own server-rendered data (a JSON data
 * island or data-* attributes), so the server's URL configuration stays the only copy.
 *
 * CSRF: Django's CsrfViewMiddleware (and DRF's SessionAuthentication) want the token in an
 * X-CSRFToken header on unsafe requests made with the session cookie. The header is sent only
 * when the page has a `csrftoken` cookie, i.e. on researcher pages (their `{% csrf_token %}`
 * sets it). Respondent pages have no cookie at all — their endpoints are CSRF-exempt and carry
 * no ambient authority — so they send no header rather than an empty one. Reading the cookie
 * needs Django's default CSRF_COOKIE_HTTPONLY = False (deniable/settings keeps it).
 */

export const CSRF_COOKIE = "csrftoken";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

/** The CSRF cookie's value, or null when there is none. `cookies` defaults to document.cookie. */
export function csrfToken(cookies = globalThis.document?.cookie ?? "", name = CSRF_COOKIE) {
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = decodeURIComponent(part.slice(eq + 1).trim());
      return value || null;
    }
  }
  return null;
}

/** The request headers: JSON accepted, JSON content when there is a body, CSRF when due. */
export function requestHeaders(method, hasBody, cookies) {
  const headers = { Accept: "application/json" };
  if (hasBody) headers["Content-Type"] = "application/json";
  const token = SAFE_METHODS.has(method) ? null : csrfToken(cookies);
  if (token) headers["X-CSRFToken"] = token;
  return headers;
}

/**
 * `request(url, { method, json, text, credentials })` → `{ ok, status, data, retryAfter }`.
 *  - `json`: a value sent as its JSON text; `text`: an already serialized JSON body (the
 *    respondent page pads its body to a fixed length, so it serializes itself);
 *  - `credentials`: "same-origin" by default ("omit" sends no cookie at all);
 *  - `data` is the parsed JSON answer, or {} when the answer is not JSON;
 *  - `retryAfter`: the answer's Retry-After header (a busy server's 429/503), or null.
 * HTTP errors are returned, not thrown (`ok` false, the API's `{errors, detail}` in `data`); a
 * network failure rejects, so callers can tell "refused" from "unreachable".
 */
export async function request(url, { method = "GET", json, text, credentials = "same-origin" } = {}) {
  const body = text !== undefined ? text : json !== undefined ? JSON.stringify(json) : undefined;
  const response = await fetch(url, {
    method,
    credentials,
    headers: requestHeaders(method, body !== undefined, credentials === "omit" ? "" : undefined),
    body,
  });
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, data, retryAfter: response.headers.get("Retry-After") };
}

/** POST/PATCH/… shorthand: `send(url, value, "PATCH")`. */
export const send = (url, json, method = "POST") => request(url, { method, json });

/**
 * One line for an API error body (docs/api.md#errors: `{"errors": {field: [messages]}}` or
 * `{"detail": …}`). `names` maps a field to the words shown for it ("" hides the name).
 */
export function errorText(data, names = {}, fallback = "Something went wrong.") {
  if (data && data.errors) {
    return Object.entries(data.errors)
      .map(([field, messages]) => {
        const name = names[field] !== undefined ? names[field] : field;
        return (name ? `${name}: ` : "") + [].concat(messages).join(" ");
      })
      .join(" ");
  }
  if (data && data.detail) return data.detail;
  return fallback;
}
