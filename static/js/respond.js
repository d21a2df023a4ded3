/* Deniable respondent page: randomized response in the browser.
 *
 * Privacy rules this file keeps (DESIGN.md §3, §4):
 *  - the TRUE answer lives only in a local variable while the coins are flipped; it is never put
 *    in a form field with a name, a URL, storage, a log, or a request;
 *  - randomness comes from crypto.getRandomValues only (never Math.random), drawn without bias;
 *  - the REPORTED answer is memoized in localStorage the moment it is drawn, so a reload or a
 *    revisit reuses it: fresh flips could be averaged to recover the truth.
 */
"use strict";

(() => {
  const dataNode = document.getElementById("survey-data");
  const form = document.getElementById("respond-form");
  if (!dataNode || !form) return;
  const data = JSON.parse(dataNode.textContent);
  const items = new Map(data.questions.map((q) => [q.key, q]));

  // ---------------------------------------------------------------- storage (reported values only)
  // No in-memory fallback (issue 11 item 2): a page that cannot remember a flip would flip afresh
  // on every reload, and averaging fresh flips reveals the truth. When site storage is blocked,
  // start() keeps the physical-coin form instead (see storageWorks).
  const store = {
    key: (name) => `deniable:${data.slug}:${name}`,
    get(name) {
      try { return window.localStorage.getItem(this.key(name)); } catch { return null; }
    },
    set(name, value) {
      try {
        window.localStorage.setItem(this.key(name), value);
        return window.localStorage.getItem(this.key(name)) === value;
      } catch { return false; }
    },
  };
  // Storage that really keeps what is written (blocked storage throws; some browsers accept
  // writes and keep nothing).
  function storageWorks() {
    const probe = store.key("~probe");
    try {
      window.localStorage.setItem(probe, "1");
      const ok = window.localStorage.getItem(probe) === "1";
      window.localStorage.removeItem(probe);
      return ok;
    } catch { return false; }
  }
  // Question keys are slugs, so "~"-prefixed names never collide with them.
  const SUBMISSION = "~submission";
  const DONE = "~done";

  // ---------------------------------------------------------------- unbiased randomness
  const TWO32 = 2 ** 32;
  function uint32() {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0];
  }
  // U uniform on [0, 2⁵³) from two words: hi·2²¹ + (lo >>> 11) is exact in a double. The server
  // ships integer thresholds T ≤ 2⁵³ (q.thresholds) and the page uses them unchanged, so
  // P(U < T) = T/2⁵³ exactly: no probability is computed, rounded or clamped here.
  function uint53() {
    const a = new Uint32Array(2);
    crypto.getRandomValues(a);
    return a[0] * 2 ** 21 + (a[1] >>> 11);
  }
  // Uniform on {0..n-1}: rejection sampling so non-powers of two carry no modulo bias.
  function randomBelow(n) {
    const limit = TWO32 - (TWO32 % n);
    let x;
    do { x = uint32(); } while (x >= limit);
    return x % n;
  }
  function uuid4() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // ---------------------------------------------------------------- the designs
  // Each returns {reported, faces: [labels shown on the coins/dice], branch}.
  const isCoinDesign = (d) => d.name === "forced_response" &&
    Math.abs(d.p_truth - 0.5) < 1e-12 && Math.abs(d.p_yes - 0.25) < 1e-12 && Math.abs(d.p_no - 0.25) < 1e-12;

  function randomize(q, truth) {
    const d = q.design;
    const t = q.thresholds;
    if (q.kind === "choice") {
      if (uint53() < t.keep) return { reported: truth, faces: ["keep"], branch: "keep" };
      const others = q.options.filter((o) => o !== truth);
      return { reported: others[randomBelow(others.length)], faces: ["swap"], branch: "other" };
    }
    const u = uint53(); // one draw, compared against cumulative thresholds: exact proportions
    if (d.name === "forced_response") {
      const branch = u < t.truth ? "truth" : u < t.yes ? "yes" : "no";
      const reported = branch === "truth" ? truth : branch === "yes";
      let faces;
      if (isCoinDesign(d)) {
        // With thresholds 2⁵² and 3·2⁵¹ this is exactly two fair coins: the top bit, then the next.
        faces = branch === "truth" ? ["tails"] : ["heads", branch === "yes" ? "heads" : "tails"];
      } else {
        faces = [branch === "truth" ? "truth" : branch];
      }
      return { reported, faces, branch };
    }
    if (d.name === "warner") {
      const asked = u < t.as_asked;
      // The report is the answer to whichever statement chance picked.
      return { reported: asked ? truth : !truth, faces: [asked ? "as asked" : "opposite"], branch: asked ? "truth" : "negation" };
    }
    if (d.name === "unrelated_question") {
      if (u < t.sensitive) return { reported: truth, faces: ["real"], branch: "truth" };
      // The innocuous question's answer is simulated with its known prevalence.
      const yes = uint53() < t.innocuous_yes;
      return { reported: yes, faces: ["other", yes ? "yes" : "no"], branch: "innocuous" };
    }
    throw new Error(`unknown design ${d.name}`);
  }

  // ---------------------------------------------------------------- words
  // Every sentence about protection comes from the server (surveys/protection.py), computed from
  // the design: the page never re-derives a probability to explain it.
  const show = (q, v) => (q.kind === "yes_no" ? (v ? "YES" : "NO") : `“${v}”`);
  const reportKey = (q, v) => (q.kind === "yes_no" ? (v ? "yes" : "no") : v);
  const pct = (x) => `${(100 * x).toFixed(x < 0.01 ? 1 : 0)}%`;

  function meaning(q, reported) {
    const entry = q.protection.reports[reportKey(q, reported)];
    return entry ? entry.text : "";
  }
  const visual = (q) => q.protection.randomizer;

  // The spinner slice a draw landed in (branch names as surveys/protection.py labels them).
  function sectorOf(q, outcome) {
    if (outcome.branch === "innocuous") return outcome.reported ? "innocuous-yes" : "innocuous-no";
    return outcome.branch;
  }

  // What the draw meant, in words (only the respondent sees this; it is never stored or sent).
  function whatHappened(q, outcome) {
    const coins = visual(q).kind === "coins";
    switch (outcome.branch) {
      case "truth":
        return q.design.name === "warner" ? "The spinner picked the statement as asked, so your answer to it is recorded." :
          coins ? "Tails: your true answer is recorded." : "The spinner picked your true answer.";
      case "yes": case "no":
        return coins ? `Heads, then ${outcome.branch === "yes" ? "heads" : "tails"}: ${outcome.branch.toUpperCase()} is recorded whatever your true answer.` :
          `The spinner picked ${outcome.branch.toUpperCase()}, whatever your true answer.`;
      case "negation":
        return "The spinner picked the opposite statement, so your answer to the opposite is recorded.";
      case "innocuous":
        return "The spinner picked the harmless question, and your browser answered it by chance.";
      case "keep":
        return "The spinner kept your true answer.";
      default:
        return "The spinner replaced your answer with another option, picked at random.";
    }
  }

  // ---------------------------------------------------------------- reading/writing memoized reports
  function loadReported(q) {
    const raw = store.get(q.key);
    if (raw === null) return undefined;
    try {
      const v = JSON.parse(raw);
      if (q.kind === "yes_no" && typeof v === "boolean") return v;
      if (q.kind === "choice" && q.options.includes(v)) return v;
    } catch { /* corrupt entry: treated as absent below */ }
    return undefined;
  }

  // ---------------------------------------------------------------- flip UI
  const reduceMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  function setupFlipper(section, q) {
    const flipper = section.querySelector("[data-role=flipper]");
    const pick = flipper.querySelector("[data-role=pick]");
    const flipButton = flipper.querySelector("[data-role=flip]");
    const stage = flipper.querySelector("[data-role=stage]");
    const skip = flipper.querySelector("[data-role=skip]");
    const result = flipper.querySelector("[data-role=result]");
    const truthButtons = [...flipper.querySelectorAll("[data-truth]")];
    let truth; // the true answer: this closure variable is the only place it ever lives

    const stored = loadReported(q);
    if (stored !== undefined) {
      pick.hidden = true;
      result.innerHTML = "";
      result.append(
        para(`Your answer to this question was already randomized on this device. We will record `, strong(show(q, stored)), "."),
        para("We don't flip again: several flips for the same question could be combined to reveal your true answer, so flipping again would weaken your protection."),
        para(meaning(q, stored)),
      );
      return;
    }

    for (const button of truthButtons) {
      button.addEventListener("click", () => {
        for (const b of truthButtons) b.setAttribute("aria-pressed", String(b === button));
        const raw = button.dataset.truth;
        truth = q.kind === "yes_no" ? raw === "true" : raw;
        flipButton.disabled = false;
      });
    }

    flipButton.addEventListener("click", () => {
      if (truth === undefined || loadReported(q) !== undefined) return;
      const outcome = randomize(q, truth);
      // Memoize BEFORE showing anything, so a reload mid-animation cannot draw a second time.
      // A draw that cannot be kept is never shown (it would be a fresh flip on every reload).
      if (!store.set(q.key, JSON.stringify(outcome.reported))) { storageBlocked(); return; }
      // Forget the truth: reset the buttons and the variable, nothing on the page keeps it.
      truth = undefined;
      for (const b of truthButtons) b.setAttribute("aria-pressed", "false");
      // Focus never falls back to the page: the skip button (or Next) takes it before the
      // truth buttons disappear.
      const next = section.querySelector("[data-role=next]");
      const running = animate(stage, skip, outcome, q, next);
      pick.hidden = true;
      running.then(() => {
        result.innerHTML = "";
        result.append(
          para(`${whatHappened(q, outcome)} We will record `, strong(show(q, outcome.reported)), "."),
          para(meaning(q, outcome.reported)),
        );
        if (document.activeElement === document.body || !isShown(document.activeElement)) next.focus();
      });
    });
  }

  function para(...parts) {
    const p = document.createElement("p");
    for (const part of parts) p.append(part);
    return p;
  }
  function strong(text) {
    const s = document.createElement("strong");
    s.className = "reported";
    s.textContent = text;
    return s;
  }

  const isShown = (el) => !!el && el.getClientRects().length > 0;
  const SECTOR_CLASSES = ["s0", "s1", "s2"];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Coins for the coin design (one or two, showing heads/tails); a spinner for every other
  // design, whose slices are the server's shares and whose pointer lands in the drawn slice.
  function buildStage(stage, q, outcome) {
    stage.innerHTML = "";
    const spec = visual(q);
    if (spec.kind === "coins") {
      const coins = outcome.faces.map((face, i) => {
        const wrap = el("div", "coin-wrap");
        const coin = el("div", "coin", "?");
        wrap.append(coin, el("span", "coin-caption", `Coin ${i + 1}`));
        stage.append(wrap);
        return { node: coin, face };
      });
      return {
        steps: coins.map((c) => ({
          start: () => c.node.classList.add("spinning"),
          end: () => { c.node.classList.remove("spinning"); c.node.textContent = c.face; },
        })),
      };
    }
    const wrap = el("div", "spinner");
    const dial = el("div", "spinner-dial");
    const disc = el("div", "spinner-disc");
    const stops = [];
    let acc = 0;
    let target = 0;
    const landed = sectorOf(q, outcome);
    const legend = el("ul", "spinner-legend");
    spec.sectors.forEach((sector, i) => {
      const from = acc * 360;
      acc += sector.share;
      const to = acc * 360;
      stops.push(`var(--sector-${i % 3}) ${from}deg ${to}deg`);
      // Where the pointer stops inside the drawn slice is decoration only (not a privacy draw).
      // The pointer stops mid-slice: the draw already happened in randomize(); the picture only
      // shows its outcome, and drawing again here for looks would spend randomness for nothing.
      if (sector.branch === landed) target = (from + to) / 2;
      const li = el("li", sector.branch === landed ? "landed" : "");
      li.append(el("span", `swatch ${SECTOR_CLASSES[i % 3]}`), `${sector.label} (${pct(sector.share)})`);
      legend.append(li);
    });
    disc.style.background = `conic-gradient(${stops.join(", ")})`;
    dial.append(disc, el("span", "spinner-pointer"));
    const label = el("p", "spinner-result", "Spinning…");
    wrap.append(dial, label);
    stage.append(wrap, legend);
    const landedLabel = spec.sectors.find((s) => s.branch === landed)?.label ?? "";
    return {
      steps: [{
        start: () => {
          disc.classList.add("turning");
          disc.style.transform = `rotate(${4 * 360 - target}deg)`;
        },
        end: () => {
          disc.classList.remove("turning");
          disc.style.transform = `rotate(${360 - target}deg)`;
          label.textContent = `Result: ${landedLabel}`;
          legend.classList.add("done");
        },
      }],
    };
  }

  // Run each coin (or the spinner) in turn; the skip button (or reduced motion) ends at once.
  // Keyboard focus: the skip button while it runs, then ``after`` (the step's Next button).
  function animate(stage, skip, outcome, q, after) {
    stage.hidden = false;
    const { steps: parts } = buildStage(stage, q, outcome);
    return new Promise((resolve) => {
      let index = 0;
      let timer = null;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        parts.forEach((part) => part.end());
        if (document.activeElement === skip || !isShown(document.activeElement)) after.focus();
        skip.hidden = true;
        resolve();
      };
      if (reduceMotion) { after.focus(); finish(); return; }
      skip.hidden = false;
      skip.focus();
      skip.addEventListener("click", finish, { once: true });
      const next = () => {
        if (index > 0) parts[index - 1].end();
        if (index === parts.length) { finish(); return; }
        parts[index].start();
        index += 1;
        timer = setTimeout(next, visual(q).kind === "coins" ? 900 : 1600);
      };
      next();
    });
  }

  // ---------------------------------------------------------------- stepper
  const steps = [...form.querySelectorAll(".step")];
  let current = 0;

  function stepError(section, message) {
    let p = section.querySelector(".js-step-error");
    if (!message) { if (p) p.remove(); return; }
    if (!p) {
      p = document.createElement("p");
      p.className = "field-error js-step-error";
      p.setAttribute("role", "alert");
      section.querySelector("fieldset, h2").after(p);
    }
    p.textContent = message;
  }

  function showStep(index, focus = true) {
    current = Math.max(0, Math.min(index, steps.length - 1));
    steps.forEach((s, i) => s.classList.toggle("current", i === current));
    const section = steps[current];
    // On a phone the explanation would push every later question below the fold; the summary
    // step repeats what matters before sending.
    document.getElementById("intro").hidden = current > 0;
    if (section.id === "step-summary") buildSummary();
    if (focus) {
      const target = section.querySelector(".question-text, h2");
      target.setAttribute("tabindex", "-1");
      target.focus();
    }
    window.scrollTo(0, 0);
  }

  function directValue(q) {
    const inputs = form.elements[`q-${q.key}`];
    if (!inputs) return undefined;
    if (q.kind === "category") {
      const checked = form.querySelector(`input[name="q-${CSS.escape(q.key)}"]:checked`);
      return checked ? checked.value : undefined;
    }
    if (inputs.value === "" || !inputs.checkValidity()) return undefined;
    return Number(inputs.value);
  }

  function answerOf(q) {
    return q.randomized ? loadReported(q) : directValue(q);
  }

  function validateStep(section) {
    const q = items.get(section.dataset.key);
    if (!q) return true;
    if (answerOf(q) !== undefined) { stepError(section, ""); return true; }
    stepError(section, q.randomized ? `Tap your true answer, then press “${visual(q).button}”.` :
      q.kind === "number" ? `Enter a number${q.min != null && q.max != null ? ` from ${q.min} to ${q.max}` : ""}.` : "Choose an answer.");
    return false;
  }

  function buildSummary() {
    const list = document.getElementById("summary-list");
    list.innerHTML = "";
    for (const q of data.questions) {
      const li = document.createElement("li");
      const v = answerOf(q);
      const title = document.createElement("strong");
      title.textContent = q.text;
      li.append(title, document.createElement("br"));
      if (q.randomized) {
        li.append(`To be sent: ${show(q, v)} — randomized on this device; your true answer is not sent. Privacy: ε = ${q.epsilon.toFixed(2)}. ${meaning(q, v)}`);
      } else {
        li.append(`To be sent: ${v}. ${q.protection.handling_text}`);
      }
      li.dataset.handling = q.protection.handling;
      list.append(li);
    }
    const anyRandomized = data.questions.some((q) => q.randomized);
    document.getElementById("summary-total").textContent = anyRandomized ?
      `Your total privacy loss for this survey is ε = ${Number(data.epsilon_total).toFixed(2)} ` +
      "(the sum over the randomized questions; smaller is more private). Only the answers above are sent." :
      "None of these answers is randomized: they are sent exactly as shown above.";
  }

  // ---------------------------------------------------------------- sending
  function token() {
    const input = document.getElementById("id_token");
    return input && input.value.trim() ? input.value.trim() : null;
  }

  function csrf() {
    const input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // Fixed-length bodies (issue 11 item 5): a network observer sees each request's size, so every
  // possible report of a randomized question must give the same number of bytes. JSON allows
  // whitespace after the value: pad with spaces up to the longest report of each such question.
  // (Direct answers are sent as given, so their length is not hidden.)
  const utf8 = new TextEncoder();
  const jsonBytes = (v) => utf8.encode(JSON.stringify(v)).length;
  function padding(answers) {
    let pad = 0;
    for (const q of data.questions) {
      if (!q.randomized) continue;
      const reports = q.kind === "yes_no" ? [true, false] : q.options;
      pad += Math.max(...reports.map(jsonBytes)) - jsonBytes(answers[q.key]);
    }
    return " ".repeat(pad);
  }

  async function send() {
    const button = document.getElementById("send-button");
    const errorBox = document.getElementById("send-error");
    errorBox.hidden = true;
    const answers = {};
    for (const q of data.questions) {
      const v = answerOf(q);
      if (v === undefined) {
        showStep(steps.findIndex((s) => s.dataset.key === q.key));
        validateStep(steps[current]);
        return;
      }
      answers[q.key] = v;
    }
    if (data.access === "invite" && !token()) {
      errorBox.textContent = "Enter your invitation code at the top of the page.";
      errorBox.hidden = false;
      return;
    }
    let submissionId = store.get(SUBMISSION);
    if (!submissionId) { submissionId = uuid4(); store.set(SUBMISSION, submissionId); }
    const body = { submission_id: submissionId, randomizer: "browser", answers };
    if (token()) body.token = token();
    button.disabled = true;
    try {
      const response = await fetch(data.api_url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
        credentials: "same-origin",
        body: JSON.stringify(body) + padding(answers),
      });
      const payload = await response.json().catch(() => ({}));
      if (response.ok) { done(); return; }
      if (response.status === 400 && payload.errors) {
        const lines = [];
        for (const [field, messages] of Object.entries(payload.errors)) {
          const key = field.startsWith("answers.") ? field.slice(8) : null;
          const index = steps.findIndex((s) => s.dataset.key === key);
          if (index >= 0) stepError(steps[index], messages.join(" "));
          lines.push(`${key ? items.get(key)?.text ?? key : field}: ${messages.join(" ")}`);
        }
        errorBox.textContent = `Please check: ${lines.join(" · ")}`;
      } else {
        errorBox.textContent = payload.detail || `The server could not take your answers (error ${response.status}).`;
      }
    } catch {
      errorBox.textContent = "We could not reach the server. Your randomized answers are kept on this device; please try again.";
    }
    errorBox.hidden = false;
    button.disabled = false;
  }

  // ---------------------------------------------------------------- invitation check
  // Asked as soon as the page opens (and when the code changes), so a used or unknown invitation
  // is refused before anything is answered. The token travels in the body only; the check does
  // not use it up. If the check cannot be made, the server still refuses on submit.
  let checkSeq = 0;
  async function checkInvitation() {
    if (data.access !== "invite" || !data.invitation_check_url) return;
    const t = token();
    const seq = ++checkSeq;
    if (!t) { setInvitation(null); return; }
    try {
      const response = await fetch(data.invitation_check_url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        credentials: "omit",
        body: JSON.stringify({ token: t }),
      });
      if (!response.ok || seq !== checkSeq) return;
      const payload = await response.json();
      setInvitation(payload.valid === true);
    } catch { /* offline: the submit decides */ }
  }

  function setInvitation(valid) {
    const refused = valid === false;
    const box = document.getElementById("invite-refused");
    const wasRefused = !box.hidden;
    box.hidden = !refused;
    form.classList.toggle("invite-blocked", refused);
    const input = document.getElementById("id_token");
    if (input) {
      if (refused) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
    }
    if (refused && !wasRefused && document.activeElement !== input) box.focus();
  }

  function done() {
    store.set(DONE, "1");
    form.hidden = true;
    const thanks = document.getElementById("thanks");
    thanks.hidden = false;
    thanks.focus();
  }

  // Site storage is blocked: stay (or go back to) the physical-coin form, which needs no memory
  // in the browser, and say why.
  function storageBlocked() {
    const notice = document.getElementById("storage-blocked");
    notice.hidden = false;
    if (form.classList.contains("stepper")) {
      // Storage failed after the page had started: back to the physical form, in place.
      physicalMode = true;
      for (const el of document.querySelectorAll(".js-only")) el.hidden = true;
      for (const el of document.querySelectorAll(".nojs-only")) el.hidden = false;
      for (const el of form.querySelectorAll("[data-role=physical] input")) el.disabled = false;
      form.classList.remove("stepper");
      document.getElementById("intro").hidden = false;
    }
    notice.focus();
  }
  let physicalMode = false;

  // ---------------------------------------------------------------- start
  function start() {
    if (!window.crypto || !crypto.getRandomValues) return; // keep the no-JS (physical) page
    if (!storageWorks()) { storageBlocked(); return; } // never fail open: coins instead
    if (store.get(DONE)) {
      form.hidden = true;
      document.getElementById("already").hidden = false;
      return;
    }
    // Invitation tokens come in the URL fragment (#t=...), which browsers never send to the
    // server; move it into the form and drop it from the address bar and history.
    const match = /(?:^#|&)t=([^&]+)/.exec(window.location.hash);
    const tokenInput = document.getElementById("id_token");
    if (match && tokenInput) {
      tokenInput.value = decodeURIComponent(match[1]);
      history.replaceState(null, "", window.location.pathname);
    }
    for (const el of document.querySelectorAll(".nojs-only")) el.hidden = true;
    for (const el of document.querySelectorAll(".js-only")) el.hidden = false;
    // The physical-coin radios are never sent from this page: disable them outright.
    for (const el of form.querySelectorAll("[data-role=physical] input")) el.disabled = true;
    form.classList.add("stepper");
    for (const section of steps) {
      const q = items.get(section.dataset.key);
      if (q && q.randomized) setupFlipper(section, q);
      section.querySelector("[data-role=next]")?.addEventListener("click", () => {
        if (validateStep(section)) showStep(current + 1);
      });
      for (const b of section.querySelectorAll("[data-role=back]")) b.addEventListener("click", () => showStep(current - 1));
    }
    form.addEventListener("submit", (event) => {
      if (physicalMode) return; // the physical-coin form posts natively
      event.preventDefault(); // never a native post from the JS page (Enter in a field lands here)
      const section = steps[current];
      if (section.id === "step-summary") send();
      else if (validateStep(section)) showStep(current + 1);
    });
    document.getElementById("send-button").addEventListener("click", send);
    tokenInput?.addEventListener("change", checkInvitation);
    showStep(0, false);
    checkInvitation();
  }

  start();
})();
