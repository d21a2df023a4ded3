/* Live power in the survey builder, the entry (templates/surveys/builder.html): finds the
 * builder's data island and starts power/live.js. */

import { mount } from "./power/live.js";

const island = document.getElementById("builder-data");
mount(document, island ? JSON.parse(island.textContent) : null);
