/* The respondent page's entry (templates/respond/survey.html): finds the page's data islands and
 * starts the page (respond/page.js). Everything else takes the page and its data as arguments. */

import { carryCodeOnLanguageSwitch, useStrings } from "./respond/i18n.js";
import { mount } from "./respond/page.js";

const island = (id) => {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
};

useStrings(island("respond-strings") ?? {}, document.documentElement.lang || "en");
carryCodeOnLanguageSwitch(document);
mount(document, island("survey-data"));
