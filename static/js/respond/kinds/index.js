/* The respondent page's question kinds: one module per kind of surveys/kinds/ (its
 * `QuestionKind.js_module`), each exporting the same small interface, found by the kind's name
 * as the server gives it (`kind_name` in the page's data island, surveys/pages/respond_page.py).
 * No kind is named here: each kind's module registers itself when loaded (`registerKind`), and
 * the page loads every kind the server's registry lists (the data island's `kind_modules`, one
 * module script each before respond.js, templates/respond/survey.html; the offline worker keeps
 * the same list, respond/offline.js). So a new kind is its Python module and this folder's
 * module, nothing else.
 *
 * The interface (a missing hook takes the default below):
 *  - `name`: the kind's registry name;
 *  - `draw(q, truth, fill)`, `validReport(q, v)`, `possibleReports(q)`, `drawnView(q, outcome)`:
 *    the randomized report (rr/memo.js memoizes it; respond/body.js pads to the longest);
 *  - `setupFlipper(section, q, page)`: only the kinds randomized in the browser have it;
 *  - `directValue(form, q)`, `problem(form, q)`: a directly answered question's value and what is
 *    wrong with what was typed;
 *  - `show(q, v)`, `meaning(q, v)`, `summary(q, v)`, `missing(q)`: the words for a report, what it
 *    reveals, its summary line before sending and the prompt when the step is left unanswered.
 */

const DEFAULTS = {
  draw: (q) => {
    throw new Error(`a ${q.kind_name} question is answered directly: nothing is drawn`);
  },
  validReport: () => false,
  possibleReports: () => [],
  drawnView: (q) => q,
  problem: () => "",
};

const KINDS = new Map();
const MODULES = new Map(); // name → the module registered under it (the same one may load twice)

/** Register a kind module under its `name` (a second module of the same name throws). */
export function registerKind(kind) {
  if (typeof kind?.name !== "string" || !kind.name) throw new Error("a kind module exports its name");
  const known = MODULES.get(kind.name);
  if (known && known !== kind) throw new Error(`question kind ${kind.name} registered twice`);
  MODULES.set(kind.name, kind);
  KINDS.set(kind.name, { ...DEFAULTS, ...kind });
}

/** The kind module of question `q` (an unknown or missing name throws: never guess a kind). */
export function kindOf(q) {
  const kind = KINDS.get(q.kind_name);
  if (!kind) throw new Error(`unknown question kind ${q.kind_name}`);
  return kind;
}
