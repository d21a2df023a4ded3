// Every page script: one dialect (ES modules), and no probability computed in the browser.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const JS = join(ROOT, "static", "js");

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
  );
}
const sources = files(JS).map((path) => [relative(ROOT, path), readFileSync(path, "utf8")]);

it("every script is an ES module in one dialect (no IIFE, no var, no sloppy-mode pragma)", () => {
  assert.ok(sources.length >= 7);
  for (const [path, text] of sources) {
    assert.doesNotMatch(text, /^\s*\(\s*(function\s*\(|\(\)\s*=>)/m, `${path}: an IIFE`);
    assert.doesNotMatch(text, /(^|[;{}]\s*)var\s/m, `${path}: var`);
    assert.doesNotMatch(text, /["']use strict["']/, `${path}: modules are strict already`);
    assert.doesNotMatch(text, /\bwindow\.__|globalThis\.__/, `${path}: a test hook`);
  }
});

it("the browser derives no probability or threshold: no exp/log/pow in any page script", () => {
  for (const [path, text] of sources) {
    assert.doesNotMatch(text, /Math\.(exp|log|log1p|expm1|pow)\b/, path);
  }
});

it("every page loads its script as a module", () => {
  const templates = ["respond/survey.html", "surveys/builder.html", "surveys/detail.html", "privacy/_releases.html"];
  for (const name of templates) {
    const html = readFileSync(join(ROOT, "templates", name), "utf8");
    const tags = html.match(/<script\b[^>]*\bsrc=[^>]*>/g) ?? [];
    assert.ok(tags.length >= 1, name);
    for (const tag of tags) assert.match(tag, /type="module"/, `${name}: ${tag}`);
  }
});
