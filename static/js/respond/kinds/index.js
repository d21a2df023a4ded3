/* The respondent page's question kinds: one module per kind of surveys/kinds/ (its
 * `QuestionKind.js_module`), each exporting the same small interface, found by the kind's name
 * as the server gives it (`kind_name` in the page's data island, surveys/pages/views.py).
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

import * as category from "./category.js";
import * as cheaterDetection from "./cheater_detection.js";
import * as choice from "./choice.js";
import * as crosswise from "./crosswise.js";
import * as multi from "./multi.js";
import * as number from "./number.js";
import * as oue from "./oue.js";
import * as unrelatedQuestionUnknown from "./unrelated_question_unknown.js";
import * as yesNo from "./yes_no.js";

const DEFAULTS = {
  draw: (q) => {
    throw new Error(`a ${q.kind_name} question is answered directly: nothing is drawn`);
  },
  validReport: () => false,
  possibleReports: () => [],
  drawnView: (q) => q,
  problem: () => "",
};

const KINDS = new Map(
  [category, cheaterDetection, choice, crosswise, multi, number, oue, unrelatedQuestionUnknown, yesNo].map((kind) => [
    kind.name,
    { ...DEFAULTS, ...kind },
  ]),
);

/** The kind module of question `q` (an unknown or missing name throws: never guess a kind). */
export function kindOf(q) {
  const kind = KINDS.get(q.kind_name);
  if (!kind) throw new Error(`unknown question kind ${q.kind_name}`);
  return kind;
}
