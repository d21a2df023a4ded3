"""Helpers of the respondent page tests in Chromium (tests/e2e/test_respondent_*.py): a survey
of every design, the true answers, viewport sizes, axe-core, screenshots, overflow and contrast
checks.

Screenshots go to ``$DENIABLE_SHOTS`` (default /tmp/shots-respondent) for a person to look at.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from testsupport.services import require_service

SHOTS = Path(os.environ.get("DENIABLE_SHOTS", "/tmp/shots-respondent"))

MIXED = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {
        "key": "drove",
        "text": "Have you driven after drinking?",
        "kind": "yes_no",
        "design": {"name": "forced_response", "p_truth": 0.6, "p_yes": 0.2, "p_no": 0.2},
    },
    {
        "key": "drugs",
        "text": "I used an illegal drug this year.",
        "kind": "yes_no",
        "design": {"name": "warner", "p": 0.75},
    },
    {
        "key": "stolen",
        "text": "Have you taken something from work?",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.5},
    },
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["Alpha", "Beta", "Gamma", "Delta"],
        "design": {"name": "k_rr", "epsilon": 1.2},
    },
    {"key": "region", "text": "Where do you live?", "kind": "category", "options": ["N", "S"]},
    {"key": "age", "text": "How old are you?", "kind": "number", "min": 18, "max": 99},
]
TRUTHS = {"cheated": "true", "drove": "true", "drugs": "false", "stolen": "true", "vote": "Gamma"}
SIZES = [(360, 740), (1280, 800)]

# The element that has keyboard focus is a control a person can see.
FOCUS_IS_VISIBLE_CONTROL = """() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return "body";
  const controls = ["BUTTON", "INPUT", "A", "SELECT", "TEXTAREA", "SUMMARY"];
  if (!controls.includes(el.tagName)) return "not a control: " + el.tagName;
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  if (r.width === 0 || r.height === 0 || s.visibility === "hidden") return "invisible";
  return "ok";
}"""

# Elements whose content is wider than their box (e.g. a label overflowing a shape).
OVERFLOWING = """() => [...document.querySelectorAll("main *")]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).overflowX === "visible"
    && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
  .map((e) => e.className || e.tagName)"""


def check_axe(page: Any, where: str) -> None:
    """0 serious/critical axe-core violations (the smoke branch's harness when it is there)."""
    try:
        from tests.e2e.axe import axe_violations, format_violations
    except ImportError:  # before the harness lands: the same injection, done here
        root = Path(__file__).resolve().parents[2]
        candidates = [
            Path(os.environ.get("AXE_CORE_JS", "/nonexistent")),
            root / "node_modules" / "axe-core" / "axe.min.js",
        ]
        axe_js = next((p for p in candidates if p.exists()), None)
        require_service(axe_js is not None, "axe-core (node_modules/axe-core/axe.min.js)")
        # Evaluated over the DevTools protocol: a <script> tag would be refused by the CSP.
        page.evaluate(axe_js.read_text(encoding="utf-8") + "\n;undefined")
        found = page.evaluate(
            """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
                .filter(v => ["serious", "critical"].includes(v.impact))
                .map(v => `${v.impact} ${v.id}: ${v.nodes.map(n => n.target).join(", ")}`)"""
        )
        assert found == [], f"axe on {where}: {found}"
        return
    found = axe_violations(page)
    assert not found, format_violations(found, where=where)


def shot(page: Any, name: str, *, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, (width, inner)
    assert page.evaluate(OVERFLOWING) == []


def contrast(fg: str, bg: str) -> float:
    def lum(css: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def memo_key(survey: Any, name: str) -> str:
    """The localStorage key of memo entry ``name`` (a question key, ``~submission``, ``~done``)
    of an open survey: ``deniable:<memo_scope>:<name>``, the scope being the survey's identity
    and designs (surveys/collection/respond_memo.py), never its slug."""
    from surveys.collection.respond_memo import memo_scope

    return f"deniable:{memo_scope(survey, list(survey.questions.all()))}:{name}"


# Offline answering (test_respondent_offline.py, test_field_walk.py): the phone, the worker's
# cache, the IndexedDB outbox and a fetch that tells whether the network is there.
PHONE = {"width": 360, "height": 740}
CACHE = "deniable-respond-v1"

OUTBOX = """() => new Promise((resolve, reject) => {
  const open = indexedDB.open("deniable-outbox", 1);
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const tx = db.transaction("submissions", "readonly");
    const all = tx.objectStore("submissions").getAll();
    all.onsuccess = () => { resolve(all.result); db.close(); };
    all.onerror = () => reject(all.error);
  };
})"""

DOWN = "() => fetch('/healthz').then(() => 'up', () => 'down')"

KEPT = f"""async () => {{
  const cache = await caches.open("{CACHE}");
  return (await cache.keys()).map((r) => new URL(r.url).pathname + new URL(r.url).search);
}}"""


def flip(page: Any, key: str, truth: str, *, skip: bool = False, advance: bool = False) -> None:
    """Answer the randomized step ``key`` as a respondent does: pick the truth, flip, skip the
    animation if ``skip``, wait for the report; ``advance`` then presses Next. The one copy of
    the step loop the page tests share."""
    step = page.locator(f"#step-{key}")
    step.locator(f'[data-truth="{truth}"]').click()
    step.locator("[data-role=flip]").click()
    if skip:
        step.locator("[data-role=skip]").click()
    step.locator("[data-role=result] .reported").wait_for()
    if advance:
        step.locator("[data-role=next]").click()


def open_and_keep(page: Any, url: str) -> None:
    """Open the survey online and wait until the worker controls the page and keeps what it needs
    (the page, its script modules, its stylesheet) — what "once opened" means."""
    page.goto(url)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    path = urlsplit(url).path
    needed = [path, "/static/js/respond.js", "/static/js/respond/page.js", "/static/css/site.css"]
    page.wait_for_function(
        f"async (needed) => {{ const kept = await ({KEPT})(); "
        "return needed.every((n) => kept.includes(n)); }",
        arg=needed,
    )
