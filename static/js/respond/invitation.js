/* Invitation codes on the respondent page (docs/respondent-pages.md): the code arrives in the URL
 * fragment (#t=…, never sent to the server), is checked as soon as the page opens, and a new
 * code starts the page again as a new respondent. */

import { request } from "../lib/http.js";

/** The code in the URL fragment (#t=…), which browsers never send to the server, or null. */
export const fragmentToken = () => {
  const match = /(?:^#|&)t=([^&]+)/.exec(window.location.hash);
  return match ? decodeURIComponent(match[1]) : null;
};

/** A new respondent (issue 21 item 8): the page starts again with the new code in the fragment,
 * so its memo is that invitation's. */
export function restartWith(code) {
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}#t=${encodeURIComponent(code)}`);
  window.location.reload();
}

/**
 * The invitation check of the page `root` (asked as soon as the page opens, and when the code
 * changes), so a used or unknown invitation is refused before anything is answered. The token
 * travels in the body only; the check does not use it up. If the check cannot be made, the
 * server still refuses on submit. `token()` reads the form's code. Returns the check to call.
 */
export function invitationCheck(root, data, token) {
  const form = root.querySelector("#respond-form");
  let checkSeq = 0;

  function setInvitation(valid) {
    const refused = valid === false;
    const box = root.querySelector("#invite-refused");
    const wasRefused = !box.hidden;
    box.hidden = !refused;
    form.classList.toggle("invite-blocked", refused);
    const input = root.querySelector("#id_token");
    if (input) {
      if (refused) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    if (refused && !wasRefused && form.ownerDocument.activeElement !== input) box.focus();
  }

  return async function checkInvitation() {
    if (data.access !== "invite" || !data.invitation_check_url) return;
    const code = token();
    const seq = ++checkSeq;
    if (!code) {
      setInvitation(null);
      return;
    }
    try {
      const { ok, data: payload } = await request(data.invitation_check_url, {
        method: "POST",
        json: { token: code },
        credentials: "omit",
      });
      if (!ok || seq !== checkSeq) return;
      setInvitation(payload.valid === true);
    } catch {
      /* offline: the submit decides */
    }
  };
}
