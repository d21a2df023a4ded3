/* Live power in the survey builder, the entry (templates/surveys/builder.html): finds the
 * builder's data island and starts power/live.js and power/regression.js. */

import { mount } from "./power/live.js";
import { mount as mountRegression } from "./power/regression.js";

const island = document.getElementById("builder-data");
const data = island ? JSON.parse(island.textContent) : null;
mount(document, data);
mountRegression(document, data);
