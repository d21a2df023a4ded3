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
  const memory = new Map(); // fallback when localStorage is unavailable (private mode, disabled)
  const store = {
    key: (name) => `deniable:${data.slug}:${name}`,
    get(name) {
      try { return window.localStorage.getItem(this.key(name)); } catch { return memory.get(name) ?? null; }
    },
    set(name, value) {
      try { window.localStorage.setItem(this.key(name), value); } catch { memory.set(name, value); }
    },
  };
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
  const pct = (x) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
  function share(p) {
    for (let n = 2; n <= 10; n += 1) if (Math.abs(p - 1 / n) < 1e-9) return `1 in ${n}`;
    return pct(p);
  }
  const show = (q, v) => (q.kind === "yes_no" ? (v ? "YES" : "NO") : `“${v}”`);

  function meaning(q, reported) {
    const d = q.design;
    const den = q.deniability || {};
    const prior = den.prior ?? 0.1;
    if (q.kind === "choice") {
      const e = Math.exp(d.epsilon);
      const keep = e / (e + q.options.length - 1);
      return `Your browser keeps the true answer only ${pct(keep)} of the time and otherwise picks another option at random, so ${show(q, reported)} does not reveal your answer: someone who thought ${pct(prior)} of people would choose ${show(q, reported)} would now think it is only ${pct(den.posterior_reported ?? prior)} likely that you did.`;
    }
    const posterior = reported ? den.posterior_yes : den.posterior_no;
    let why;
    if (d.name === "forced_response") {
      const forced = reported ? d.p_yes : d.p_no;
      const how = isCoinDesign(d) ? (reported ? " (heads, then heads)" : " (heads, then tails)") : "";
      why = `${share(forced)} people are recorded ${show(q, reported)} whatever their true answer${how}, so a ${show(q, reported)} does not reveal what you do`;
    } else if (d.name === "warner") {
      why = `chance picked whether you answered the statement or its opposite, and only you saw which, so a ${show(q, reported)} does not reveal what you do`;
    } else {
      why = `${share(1 - d.p)} answers are about a different, harmless question that your browser answered by chance, so a ${show(q, reported)} does not reveal what you do`;
    }
    const after = posterior === undefined ? "" :
      `: someone who thought ${pct(prior)} of people do this would now think it is ${pct(posterior)} likely that you do`;
    return `${why[0].toUpperCase()}${why.slice(1)}${after}.`;
  }

  // What the draw meant, in words (only the respondent sees this; it is never stored or sent).
  function whatHappened(q, outcome) {
    switch (outcome.branch) {
      case "truth":
        return q.design.name === "warner" ? "Chance picked the statement as asked, so your answer to it is recorded." :
          isCoinDesign(q.design) ? "Tails: your true answer is recorded." : "Chance picked your true answer.";
      case "yes": case "no":
        return isCoinDesign(q.design) ? `Heads, then ${outcome.branch === "yes" ? "heads" : "tails"}: ${outcome.branch.toUpperCase()} is recorded whatever your true answer.` :
          `Chance picked ${outcome.branch.toUpperCase()}, whatever your true answer.`;
      case "negation":
        return "Chance picked the opposite statement, so your answer to the opposite is recorded.";
      case "innocuous":
        return "Chance picked the harmless question, and your browser answered it by chance.";
      case "keep":
        return "Chance kept your true answer.";
      default:
        return "Chance replaced your answer with another option.";
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
      store.set(q.key, JSON.stringify(outcome.reported));
      // Forget the truth: reset the buttons and the variable, nothing on the page keeps it.
      truth = undefined;
      for (const b of truthButtons) b.setAttribute("aria-pressed", "false");
      pick.hidden = true;
      animate(stage, skip, outcome.faces, q).then(() => {
        result.innerHTML = "";
        result.append(
          para(`${whatHappened(q, outcome)} We will record `, strong(show(q, outcome.reported)), "."),
          para(meaning(q, outcome.reported)),
        );
        result.focus();
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

  // Spin each coin in turn; the skip button (or reduced motion) shows the faces at once.
  function animate(stage, skip, faces, q) {
    stage.hidden = false;
    stage.innerHTML = "";
    const coins = faces.map(() => {
      const c = document.createElement("div");
      c.className = q.kind === "choice" || (q.design.name !== "forced_response") ? "coin die" : "coin";
      c.textContent = "?";
      stage.append(c);
      return c;
    });
    return new Promise((resolve) => {
      let index = 0;
      let timer = null;
      const finish = () => {
        clearTimeout(timer);
        coins.forEach((c, i) => { c.classList.remove("spinning"); c.textContent = faces[i]; });
        skip.hidden = true;
        resolve();
      };
      if (reduceMotion) { finish(); return; }
      skip.hidden = false;
      skip.addEventListener("click", finish, { once: true });
      const next = () => {
        if (index > 0) { coins[index - 1].classList.remove("spinning"); coins[index - 1].textContent = faces[index - 1]; }
        if (index === coins.length) { finish(); return; }
        coins[index].classList.add("spinning");
        index += 1;
        timer = setTimeout(next, 900);
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
    stepError(section, q.randomized ? "Tap your true answer, then flip the coins." :
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
        li.append(`Recorded: ${show(q, v)} (chosen by chance). Privacy: ε = ${q.epsilon.toFixed(2)}. ${meaning(q, v)}`);
      } else {
        li.append(`Recorded as you answered: ${v}. Not sensitive, not randomized.`);
      }
      list.append(li);
    }
    document.getElementById("summary-total").textContent =
      `Your total privacy loss for this survey is ε = ${Number(data.epsilon_total).toFixed(2)} ` +
      "(the sum over the sensitive questions; smaller is more private). Only the recorded answers above are sent.";
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
        body: JSON.stringify(body),
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

  function done() {
    store.set(DONE, "1");
    form.hidden = true;
    const thanks = document.getElementById("thanks");
    thanks.hidden = false;
    thanks.focus();
  }

  // ---------------------------------------------------------------- start
  function start() {
    if (!window.crypto || !crypto.getRandomValues) return; // keep the no-JS (physical) page
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
      event.preventDefault(); // never a native post from the JS page (Enter in a field lands here)
      const section = steps[current];
      if (section.id === "step-summary") send();
      else if (validateStep(section)) showStep(current + 1);
    });
    document.getElementById("send-button").addEventListener("click", send);
    showStep(0, false);
  }

  start();
})();
