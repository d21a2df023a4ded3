// The respondent page's words (static/js/respond/i18n.js): placeholders filled, nodes kept.
import assert from "node:assert/strict";
import { it } from "node:test";

import { translator } from "../../static/js/respond/i18n.js";

const { t, tParts } = translator({
  will_record: "{what} Registraremos {report}.",
  quoted: "«{label}»",
});

it("fills every {name} it is given and leaves the others", () => {
  assert.equal(t("quoted", { label: "Partido B" }), "«Partido B»");
  assert.equal(t("will_record", { what: "Cruz." }), "Cruz. Registraremos {report}.");
});

it("an unknown key reads as itself (never undefined on the page)", () => {
  assert.equal(t("missing_key"), "missing_key");
});

it("keeps a node value as a node, in the translation's order", () => {
  const node = { nodeType: 1 };
  assert.deepEqual(tParts("will_record", { what: "Cara.", report: node }), ["Cara.", " Registraremos ", node, "."]);
});
