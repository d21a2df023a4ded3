/* The builder's error display (split from builder.js): the API answers {"errors": {path:
 * [messages]}} with paths such as "questions[1].design.p_no". Each message is shown once next to
 * its field, in plain words, and listed in a summary at the top that names the question:
 * 'Question 2 (“Cheated on an exam”): the three probabilities…'. */
import { capital, plain } from "./plain.js";

/** The error functions of one builder `form` whose question cards are the children of `list`. */
export function builderErrors(form, list) {
  let uid = 0; // ids of the error slots (err1, err2, …), for aria-describedby
  const field = (root, path) => root.querySelector(`[data-path="${path}"]`);
  function questionName(card) {
    const index = [...list.children].indexOf(card);
    const text = field(card, "text").value.trim();
    const short = text.length > 40 ? `${text.slice(0, 39)}…` : text;
    return `Question ${index + 1}${short ? ` (“${short}”)` : ""}`;
  }

  function labelOf(root, target) {
    const input = root.querySelector(`[data-path="${target.dataset.errorFor}"]`);
    const label = input && input.id ? form.querySelector(`label[for="${input.id}"]`) : null;
    return { input, name: label ? label.textContent.trim() : target.dataset.errorFor };
  }

  function clearCardErrors(root, source) {
    for (const el of root.querySelectorAll(`.field-error[data-source="${source}"]`)) {
      el.hidden = true;
      el.textContent = "";
      el.removeAttribute("data-source");
      const input = root.querySelector(`[data-path="${el.dataset.errorFor}"]`);
      if (input) {
        input.removeAttribute("aria-invalid");
        input.removeAttribute("aria-describedby");
      }
    }
  }

  function clearErrors() {
    for (const el of form.querySelectorAll(".field-error")) {
      el.hidden = true;
      el.textContent = "";
      el.removeAttribute("data-source");
    }
    for (const el of form.querySelectorAll("[aria-invalid]")) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    }
    const box = document.getElementById("builder-errors");
    box.hidden = true;
    box.textContent = "";
  }

  // Put each error next to its field (the closest parent path that has a slot); returns the
  // summary entries {text, short, input}. `only` limits placement to one card (live preview).
  function placeErrors(errors, only = null, source = "save") {
    const entries = [];
    for (const [path, messages] of Object.entries(errors)) {
      let root = only || form;
      let rest = path;
      const m = /^questions\[(\d+)\]\.?(.*)$/.exec(path);
      if (m && !only) {
        root = list.children[Number(m[1])] || form;
        rest = m[2] || "";
      }
      rest = rest.replace(/\[\d+\]$/, ""); // "options[2]" → "options"
      let target = null;
      for (let candidate = rest; candidate && !target; candidate = candidate.replace(/\.?[^.]*$/, "")) {
        target = root.querySelector(`[data-error-for="${candidate}"]`);
      }
      const card = root !== form ? root : null;
      for (const message of messages) {
        const said = plain(message);
        const where = target ? labelOf(root, target) : { input: null, name: path };
        const name = path === "non_field_errors" ? "" : where.name;
        const about = said.whole || !name ? "" : name;
        const text = card
          ? `${questionName(card)}${about ? `, ${about}` : ""}: ${said.text}`
          : about
            ? `${about}: ${said.text}`
            : capital(said.text);
        entries.push({ text, short: capital(said.text), input: where.input, target });
        if (!target) continue;
        const line = `${capital(said.text)}.`;
        if (!target.textContent.includes(line))
          target.textContent = (target.textContent ? `${target.textContent} ` : "") + line;
        target.hidden = false;
        target.dataset.source = source;
        if (!target.id) {
          uid += 1;
          target.id = `err${uid}`;
        }
        if (where.input) {
          where.input.setAttribute("aria-invalid", "true");
          where.input.setAttribute("aria-describedby", target.id);
        }
      }
    }
    return entries.filter((e) => !only || !e.target);
  }

  function showErrors(errors) {
    const entries = placeErrors(errors);
    const box = document.getElementById("builder-errors");
    box.textContent = "";
    const heading = document.createElement("h2");
    heading.textContent =
      entries.length === 1
        ? "There is 1 problem to fix before saving"
        : `There are ${entries.length} problems to fix before saving`;
    const ul = document.createElement("ul");
    for (const entry of entries) {
      const li = document.createElement("li");
      if (entry.input && entry.input.id) {
        const a = document.createElement("a");
        a.href = `#${entry.input.id}`;
        a.textContent = entry.text;
        a.addEventListener("click", (event) => {
          event.preventDefault();
          entry.input.focus();
        });
        li.append(a);
      } else li.textContent = entry.text;
      ul.append(li);
    }
    box.append(heading, ul);
    box.hidden = false;
    box.setAttribute("tabindex", "-1");
    box.focus();
  }

  return { clearCardErrors, clearErrors, placeErrors, showErrors };
}
