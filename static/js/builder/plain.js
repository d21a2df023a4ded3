/* The builder's plain words for the server's design errors (builder.js shows them next to the
 * field and in the summary); a message without a rule here is shown as the server wrote it.
 */

const PLAIN = [
  [
    /p_truth \+ p_yes \+ p_no must sum to 1 \(got (.+)\)/,
    (m) => `the three probabilities must add up to 1 (they add up to ${m[1]})`,
    true,
  ],
  [
    /must be a probability between 0 and 1 \(got (.+)\)/,
    (m) => `must be a probability between 0 and 1 (you entered ${m[1]})`,
  ],
  [/^p = 0\.5 gives c = 2p − 1 = 0/, () => "0.5 makes the answers carry no information: use a value above 0.5"],
  [
    /^p = .* gives c = 2p − 1 < 0/,
    () => "must be above 0.5 (below it, the opposite statement is the one mostly answered)",
  ],
  [
    /^p = 0 means the sensitive question is never answered/,
    () => "must be above 0: at 0 the sensitive question is never answered",
  ],
  [/^must be > 0 \(p_truth = 0/, () => "must be above 0: at 0 the answers carry no information"],
  [/k-RR needs at least 2 options/, () => "a choice question needs at least 2 options", true],
  [
    /^Give (\d+) to (\d+) options \(got (\d+)\)/,
    (m) => `give between ${m[1]} and ${m[2]} options, one per line (there ${m[3] === "1" ? "is 1" : `are ${m[3]}`})`,
  ],
  [/^must be a number \(got .*\)/, () => "must be a number"],
  [/^must be > 0 \(got .*\)/, () => "must be greater than 0"],
  [
    /c = P\(yes\|trait\) − P\(yes\|no trait\) must be > 0/,
    () =>
      "these settings make a “yes” no more likely for people with the trait: the answers would carry no information",
    true,
  ],
];

export function plain(message) {
  for (const [pattern, say, whole] of PLAIN) {
    const m = pattern.exec(message);
    if (m) return { text: say(m), whole: !!whole };
  }
  return { text: message.replace(/\.$/, ""), whole: false };
}
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
