/* The two-probability device (dpcore/local/designs/two_probability.py) on the respondent page:
 * any P(YES | trait) = a, P(YES | no trait) = b, run as forced response on the server's
 * thresholds truth = T(a) − T(b), yes = T(a) (rr/designs/forced_response.js draws them). */

import { registerDesign } from "../randomizer.js";
import { truthOrForced } from "./forced_response.js";

export const name = "two_probability";

registerDesign(name, truthOrForced);
