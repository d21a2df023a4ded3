/* The design chooser next to a choice question's design picker in the builder (issue 26.1): on
 * every fresh design preview (builder.js's "deniable:preview" event) of a kind whose designs
 * randomize one answer among k options, it asks POST /api/v1/designs/recommend/ (the URL from the
 * `builder-data` island) which design is the more precise at this ε, k and planned n, and says
 * so with one option's interval half-width under each (at even shares). No formula here: the
 * figures are the server's (dpcore/local/recommend.py). */
import { send } from "../lib/http.js";

const pp = (x) => `±${(100 * x).toFixed(1)} pp`;

/** The recommend request for a preview `detail`, or null when the card's kind has no k-option
 * design or the preview lacks what the request needs. `kinds`: the island's kind table. */
export function recommendRequest(detail, kinds) {
  if (kinds[detail.kind]?.design !== "fixed") return null;
  const k = (detail.options || []).length;
  const epsilon = detail.design?.epsilon;
  if (k < 2 || !Number.isFinite(epsilon) || !(epsilon > 0)) return null;
  return { kind: detail.kind, options: k, epsilon, n: Math.max(1, detail.planned_n || 1000), confidence: 0.95 };
}

/** The sentence for an answer `payload` (titles: design name → the registry's title). */
export function recommendSentence(payload, titles, chosen) {
  const best = payload.recommended.name;
  const at = `at ε = ${Number(payload.epsilon).toFixed(2)}, ${payload.options} options, n = ${payload.n}`;
  const each = payload.candidates
    .map((c) => `${titles[c.design.name] ?? c.design.name} ${pp(c.half_width)} (rare option ${pp(c.rare.half_width)})`)
    .join("; ");
  const verdict = chosen === best ? "the design chosen is the more precise" : `recommended: ${titles[best] ?? best}`;
  return `Design chooser ${at}: ${verdict}. One option's 95% interval: ${each}.`;
}

/** Listen on `list` (the builder's #questions) and fill each card's [data-role=recommend]. */
export function mount(list, data) {
  if (!list || !data?.recommend_url) return;
  const titles = Object.fromEntries((data.designs || []).map((d) => [d.name, d.title]));
  const asked = new WeakMap(); // card → its latest request's number (older answers are dropped)

  async function render(card, detail) {
    const box = card.querySelector("[data-role=recommend]");
    if (!box) return;
    const ticket = (asked.get(card) || 0) + 1;
    asked.set(card, ticket);
    const body = detail && recommendRequest(detail, data.kinds || {});
    if (!body) {
      box.textContent = "";
      return;
    }
    try {
      const { ok, data: payload } = await send(data.recommend_url, body);
      if (asked.get(card) !== ticket) return;
      box.textContent = ok ? recommendSentence(payload, titles, detail.design.name) : "";
    } catch {
      if (asked.get(card) === ticket) box.textContent = "";
    }
  }

  list.addEventListener("deniable:preview", (event) => {
    const card = event.target.closest("li") || event.target;
    render(card, event.detail);
  });
  list.addEventListener("deniable:preview-cleared", (event) => {
    const card = event.target.closest("li") || event.target;
    render(card, null);
  });
}
