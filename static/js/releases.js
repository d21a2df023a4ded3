/* The releases panel's entry (templates/privacy/_releases.html): finds the panel and starts it
 * (releases/panel.js, whose URLs come from the panel's data-* attributes). */

import { releasesPanel } from "./releases/panel.js";

const panel = document.getElementById("releases");
if (panel) releasesPanel(panel);
