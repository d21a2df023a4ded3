/* What the two-group yes/no designs share (cheating detection and the unrelated question with an
 * unknown innocuous prevalence): chance puts the respondent in group 1 or 2, and the group
 * travels with the report, {group, report}. Each design's own module draws within the group. */

/** The memo's draw from a design's `randomize(q, truth, fill)` → {group, reported, branch}. */
export function groupedDraw(randomize) {
  return (q, truth, fill) => {
    const { group, reported, branch } = randomize(q, truth, fill);
    return { reported: { group, report: reported }, branch, group };
  };
}

export const validReport = (q, v) =>
  v !== null &&
  typeof v === "object" &&
  Object.keys(v).length === 2 &&
  (v.group === 1 || v.group === 2) &&
  typeof v.report === "boolean";

export const possibleReports = () => [1, 2].flatMap((group) => [true, false].map((report) => ({ group, report })));

/** The question as the drawn group shows it: that group's spinner (surveys/pages/protection.py). */
export function drawnView(q, outcome) {
  if (!outcome.group) return q;
  const randomizer = q.protection.randomizer.groups[outcome.group - 1];
  return { ...q, protection: { ...q.protection, randomizer } };
}
