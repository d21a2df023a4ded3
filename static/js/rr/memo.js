/* Memoized reports: one randomized report per survey and question, kept in site storage.
 *
 * Why: if a reload (or a second visit) drew afresh, a respondent — or anyone holding their
 * device — could collect many reports for the same question and average the noise away,
 * recovering the true answer. So the first report is stored the moment it is drawn and every
 * later call returns it without drawing again.
 *
 * Fails closed (issue 11 item 2): there is no in-memory fallback. `openMemo` returns null when
 * storage is blocked or keeps nothing (some browsers accept writes and drop them), and `draw`
 * throws StorageBlockedError when the report it just drew cannot be kept — the caller must then
 * discard that draw unseen and fall back to the physical-coin form.
 *
 * Only reported values (and the submission id / done flag) are stored, never a true answer.
 * Keys: `deniable:<scope>:<question key>`; question keys are slugs, so the "~"-prefixed names
 * below never collide with them. The scope is the survey's identity and designs as the server
 * names them (`memo_scope`, surveys/collection/respond_memo.py), plus the invitation's tag on invite-only
 * surveys (respond.js) — never the slug, which a new survey can take over (issue 21 item 8).
 */

import { kindOf } from "../respond/kinds/index.js";

export const SUBMISSION = "~submission";
export const DONE = "~done";
const PROBE = "~probe";

export class StorageBlockedError extends Error {
  constructor() {
    super("site storage is blocked: a report that cannot be kept is never used");
    this.name = "StorageBlockedError";
  }
}

/** Every report the question can send (the page pads bodies to the longest). */
export const possibleReports = (q) => kindOf(q).possibleReports(q);

/** The question as the drawn outcome shows it (the drawn group's spinner, cheating detection). */
export const drawnView = (q, outcome) => kindOf(q).drawnView(q, outcome);

export class Memo {
  /** `storage`: a Storage (getItem/setItem/removeItem); `scope`: the survey, its designs and
   * (invite-only) the invitation. */
  constructor(storage, scope) {
    this.storage = storage;
    this.scope = scope;
  }

  key(name) {
    return `deniable:${this.scope}:${name}`;
  }

  get(name) {
    try {
      return this.storage.getItem(this.key(name));
    } catch {
      return null;
    }
  }

  /** Store and read back; false when the value was not kept. */
  set(name, value) {
    try {
      this.storage.setItem(this.key(name), value);
      return this.storage.getItem(this.key(name)) === value;
    } catch {
      return false;
    }
  }

  remove(name) {
    try {
      this.storage.removeItem(this.key(name));
    } catch {
      /* blocked storage: nothing was kept to remove */
    }
  }

  /** Storage that really keeps what is written (blocked storage throws; some browsers accept
   * writes and keep nothing). */
  works() {
    const probe = this.key(PROBE);
    try {
      this.storage.setItem(probe, "1");
      const ok = this.storage.getItem(probe) === "1";
      this.storage.removeItem(probe);
      return ok;
    } catch {
      return false;
    }
  }

  /** The memoized report of question `q`, or undefined (absent or corrupt entries alike). */
  reported(q) {
    const raw = this.get(q.key);
    if (raw === null) return undefined;
    try {
      const v = JSON.parse(raw);
      if (kindOf(q).validReport(q, v)) return v;
    } catch {
      /* corrupt entry: treated as absent */
    }
    return undefined;
  }

  /**
   * The report for `q`: the memoized one if any (`fresh: false`, nothing drawn), else a new
   * draw (`fresh: true`, with its branch), stored BEFORE it is returned so that nothing can
   * show a draw that was not kept. Throws StorageBlockedError if it cannot be stored.
   */
  draw(q, truth, fill) {
    const kept = this.reported(q);
    if (kept !== undefined) return { reported: kept, fresh: false };
    const outcome = kindOf(q).draw(q, truth, fill); // its kind's draw (respond/kinds/)
    if (!this.set(q.key, JSON.stringify(outcome.reported))) throw new StorageBlockedError();
    return { ...outcome, fresh: true };
  }
}

/** A short tag naming an invitation token in memo keys, so the token itself is never stored:
 * cyrb53, a 53-bit string hash (separation, not secrecy: the token list's holder could match it,
 * as they could a SHA-256 prefix). Synchronous, so it works outside secure contexts too. */
export function tokenTag(token) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < token.length; i++) {
    const ch = token.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** The memo scope of a page: the server's survey-and-designs scope, and on an invite-only survey
 * the invitation's tag — a new token is a new respondent. */
export function memoScope(data, token) {
  return data.access === "invite" && token ? `${data.memo_scope}.${tokenTag(token)}` : data.memo_scope;
}

/** A Memo on `getStorage()` (e.g. `() => window.localStorage`, whose mere access throws when
 * site data is blocked), or null when that storage does not keep what is written: fail closed. */
export function openMemo(getStorage, scope) {
  let storage;
  try {
    storage = getStorage();
  } catch {
    return null;
  }
  if (!storage) return null;
  const memo = new Memo(storage, scope);
  return memo.works() ? memo : null;
}
