/* The request body's helpers of the respondent page (respond.js): fixed-length padding and the
 * submission id.
 */

import { possibleReports } from "../rr/memo.js";

// Fixed-length bodies (issue 11 item 5): a network observer sees each request's size, so every
// possible report of a randomized question must give the same number of bytes. JSON allows
// whitespace after the value: pad with spaces up to the longest report of each such question.
// (Direct answers are sent as given, so their length is not hidden.)
const utf8 = new TextEncoder();
const jsonBytes = (v) => utf8.encode(JSON.stringify(v)).length;
export function padding(questions, answers) {
  let pad = 0;
  for (const q of questions) {
    if (!q.randomized || !(q.key in answers)) continue; // an unanswered one sends nothing
    const reports = possibleReports(q);
    pad += Math.max(...reports.map(jsonBytes)) - jsonBytes(answers[q.key]);
  }
  return " ".repeat(pad);
}

// A version-4 UUID naming this submission (a retry after a network failure reuses it, so the
// server stores it once). randomUUID needs a secure context; elsewhere, 16 random bytes.
export function uuid4() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
