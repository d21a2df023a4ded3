/* k-ary randomized response (dpcore/local/designs/k_rr.py) on the respondent page: the true
 * answer is one of the question's k options. One draw U; U < keep → the true option ("keep");
 * else one of the other k − 1 options, uniformly by rejection sampling ("other"). Two words, plus
 * at least one for "other". */

import { randomBelow, registerDesign, uint53 } from "../randomizer.js";

export const name = "k_rr";

registerDesign(name, {
  thresholds: ["keep"],
  option: true,
  draw(t, truth, fill, q) {
    if (uint53(fill) < t.keep) return { reported: truth, branch: "keep" };
    const others = q.options.filter((o) => o !== truth);
    return { reported: others[randomBelow(others.length, fill)], branch: "other" };
  },
});
