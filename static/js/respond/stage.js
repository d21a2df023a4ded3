/* What the respondent sees of a draw: the coins or the spinner, and the words for the outcome.
 *
 * Display only. The draw has already happened (rr/randomizer.js) and been memoized (rr/memo.js)
 * before anything here runs; nothing here draws randomness. Every number shown — the spinner's
 * slices and their percentages, the sentences about protection — comes from the server
 * (surveys/pages/protection.py, `q.protection`): the page never derives a probability to explain it.
 */

import { t } from "./i18n.js";

const isShown = (node) => !!node && node.getClientRects().length > 0;
const SECTOR_CLASSES = ["s0", "s1", "s2"];
const reduceMotion = () => !!window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

export const visual = (q) => q.protection.randomizer;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The coin faces of a forced-response branch on the coin design (thresholds 2⁵² and 3·2⁵¹):
// first coin tails → the truth; heads, then a second coin: heads YES, tails NO.
const COIN_FACES = { truth: ["tails"], yes: ["heads", "heads"], no: ["heads", "tails"] };

// The spinner slice a draw landed in (branch names as surveys/pages/protection.py labels them).
function sectorOf(outcome) {
  if (outcome.branch === "innocuous") return outcome.reported ? "innocuous-yes" : "innocuous-no";
  return outcome.branch;
}

/** What the draw meant, in words (only the respondent sees this; never stored or sent). */
export function whatHappened(q, outcome) {
  const coins = visual(q).kind === "coins";
  switch (outcome.branch) {
    case "truth":
      // A device that may flip the statement: the "truth" branch answered the statement as asked.
      if (visual(q).sectors?.some((s) => s.branch === "negation")) return t("warner_truth");
      return t(coins ? "coins_truth" : "spinner_truth");
    case "yes":
    case "no":
      return t(`${coins ? "coins" : "spinner"}_${outcome.branch}`);
    case "negation":
      return t("negation");
    case "innocuous":
      return t("innocuous");
    case "keep":
      return t("keep");
    default:
      return t("other");
  }
}

function coinStage(stage, outcome) {
  const coins = (COIN_FACES[outcome.branch] ?? []).map((face, i) => {
    const wrap = el("div", "coin-wrap");
    const coin = el("div", "coin", "?");
    wrap.append(coin, el("span", "coin-caption", t("coin_caption", { n: i + 1 })));
    stage.append(wrap);
    return { node: coin, face };
  });
  return coins.map((c) => ({
    start: () => c.node.classList.add("spinning"),
    end: () => {
      c.node.classList.remove("spinning");
      c.node.textContent = t(c.face);
    },
  }));
}

// A spinner whose slices are the server's shares, labelled with the server's percentages; the
// pointer stops mid-slice of the drawn branch (decoration only: no extra random draw for looks).
function spinnerStage(stage, spec, outcome) {
  const wrap = el("div", "spinner");
  const dial = el("div", "spinner-dial");
  const disc = el("div", "spinner-disc");
  const legend = el("ul", "spinner-legend");
  const landed = sectorOf(outcome);
  const stops = [];
  let acc = 0;
  let target = 0;
  spec.sectors.forEach((sector, i) => {
    const from = acc * 360;
    acc += sector.share;
    const to = acc * 360;
    stops.push(`var(--sector-${i % 3}) ${from}deg ${to}deg`);
    if (sector.branch === landed) target = (from + to) / 2;
    const li = el("li", sector.branch === landed ? "landed" : "");
    li.append(el("span", `swatch ${SECTOR_CLASSES[i % 3]}`), `${sector.label} (${sector.percent})`);
    legend.append(li);
  });
  disc.style.background = `conic-gradient(${stops.join(", ")})`;
  dial.append(disc, el("span", "spinner-pointer"));
  const label = el("p", "spinner-result", t("spinning"));
  wrap.append(dial, label);
  stage.append(wrap, legend);
  const landedLabel = spec.sectors.find((s) => s.branch === landed)?.label ?? "";
  return [
    {
      start: () => {
        disc.classList.add("turning");
        disc.style.transform = `rotate(${4 * 360 - target}deg)`;
      },
      end: () => {
        disc.classList.remove("turning");
        disc.style.transform = `rotate(${360 - target}deg)`;
        label.textContent = t("result", { label: landedLabel });
        legend.classList.add("done");
      },
    },
  ];
}

/**
 * Run each coin (or the spinner) in turn; the skip button (or reduced motion) ends at once.
 * Keyboard focus: the skip button while it runs, then `after` (the step's Next button).
 * Resolves when the outcome is on screen.
 */
export function animate(stage, skip, outcome, q, after) {
  stage.hidden = false;
  stage.innerHTML = "";
  const spec = visual(q);
  const parts = spec.kind === "coins" ? coinStage(stage, outcome) : spinnerStage(stage, spec, outcome);
  return new Promise((resolve) => {
    let index = 0;
    let timer = null;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      parts.forEach((part) => part.end());
      if (document.activeElement === skip || !isShown(document.activeElement)) after.focus();
      skip.hidden = true;
      resolve();
    };
    if (reduceMotion()) {
      after.focus();
      finish();
      return;
    }
    skip.hidden = false;
    skip.focus();
    skip.addEventListener("click", finish, { once: true });
    const next = () => {
      if (index > 0) parts[index - 1].end();
      if (index === parts.length) {
        finish();
        return;
      }
      parts[index].start();
      index += 1;
      timer = setTimeout(next, spec.kind === "coins" ? 900 : 1600);
    };
    next();
  });
}

export { isShown };
