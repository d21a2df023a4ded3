/* The respondent page's entry (templates/respond/survey.html, after the module scripts of every
 * question kind, which register themselves: respond/kinds/index.js): finds the page's data
 * islands, starts the page (respond/page.js) and registers the offline worker (respond/offline.js).
 * Everything else takes the page and its data as arguments. */

import { carryCodeOnLanguageSwitch, useStrings } from "./respond/i18n.js";
import { registerWorker } from "./respond/offline.js";
import { mount } from "./respond/page.js";

const island = (id) => {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
};

useStrings(island("respond-strings") ?? {}, document.documentElement.lang || "en");
carryCodeOnLanguageSwitch(document);
const data = island("survey-data");
mount(document, data);
registerWorker(data); // the page and its files kept for offline use (static/js/sw.js)
