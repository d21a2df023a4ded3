/* Optional questions and skip logic on the respondent page (docs/respondent-pages.md#skip-logic).
 *
 * A question with `show_if: {key, in}` is shown only when the earlier category question `key`
 * was answered with one of `in` (a category answer is never randomized, so nothing randomized
 * decides what is shown). A hidden question is passed over by Next and Back, left out of the
 * summary and never sent; an optional question left unanswered is not sent either.
 */

/** `answerOf(q)` for every question, given the raw reader of the page's inputs and memo. */
export function answers(items, raw) {
  const shown = (q) => {
    const rule = q.show_if;
    if (!rule) return true;
    const source = items.get(rule.key);
    const value = source ? answerOf(source) : undefined;
    return typeof value === "string" && rule.in.includes(value);
  };
  const answerOf = (q) => {
    if (!shown(q)) return undefined;
    const v = raw(q);
    return v === "" ? undefined : v; // the "No answer" radio of an optional question
  };
  return { shown, answerOf };
}

/** The index of the next shown step from `from` in direction `dir` (+1 or −1); steps without a
 *  question (the summary) are always shown. */
export function nextShown(steps, items, shown, from, dir) {
  let i = from + dir;
  while (i > 0 && i < steps.length - 1) {
    const q = items.get(steps[i].dataset.key);
    if (!q || shown(q)) break;
    i += dir;
  }
  return i;
}
