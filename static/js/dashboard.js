/* The survey dashboard's entry (templates/surveys/detail.html): its confirm dialogs
 * (dashboard/confirm.js). */

import { mount } from "./dashboard/confirm.js";

mount(document);
