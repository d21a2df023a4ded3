"""The project's docs (docs/*.md, README.md): links and anchors resolve, and the API guide lists
every API route."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "SECURITY.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path: Path) -> set[str]:
    """Explicit ``<a id>`` anchors and GitHub's heading slugs."""
    text = path.read_text()
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_and_anchors_resolve(doc):
    for target in LINK.findall(doc.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        assert path.exists(), f"{doc.name}: {target}"
        if anchor and path.suffix == ".md":
            assert anchor in anchors(path), f"{doc.name}: {target}"


def test_new_docs_give_every_section_a_stable_anchor():
    for name in ("architecture", "privacy-model", "formulas", "api", "deployment"):
        text = (ROOT / "docs" / f"{name}.md").read_text().splitlines()
        for i, line in enumerate(text):
            if line.startswith("## ") or line.startswith("### "):
                before = [t for t in text[max(0, i - 2) : i] if t.strip()]
                assert before and before[-1].startswith('<a id="'), f"{name}.md: {line}"


def test_api_guide_lists_every_api_route():
    from accounts.api.urls import urlpatterns as account_routes
    from audit.api_urls import urlpatterns as audit_routes
    from privacy.api.urls import urlpatterns as privacy_routes
    from surveys.api.urls import urlpatterns as survey_routes

    guide = (ROOT / "docs" / "api.md").read_text()
    for pattern in [*account_routes, *survey_routes, *privacy_routes, *audit_routes]:
        route = re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", str(pattern.pattern))
        route = route.replace("<release_id>", "<id>")
        path = f"/api/v1/{route}"
        assert f"`{path}`" in guide, path


# --- numbers and rules the docs quote from the code (issue 22 item 17) -------------------------


def test_api_guide_states_the_confidence_range_of_the_code():
    from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN

    guide = (ROOT / "docs" / "api.md").read_text()
    assert f"must be from {CONFIDENCE_MIN!r} to {CONFIDENCE_MAX!r}" in guide


def test_the_api_tour_says_why_its_estimates_show_n_0():
    """The README's tour reads the estimates after one response: it says n = 0 until a batch of
    k is published, with the k of the code (issue 22 item 13)."""
    base = (ROOT / "deniable" / "settings" / "base.py").read_text()
    k = int(re.search(r'env\.int\("DENIABLE_ESTIMATE_BATCH", default=(\d+)\)', base).group(1))
    readme = (ROOT / "README.md").read_text()
    tour = readme[readme.index("## The API in a few calls") : readme.index("## Documentation")]
    assert f"# n = 0 until k = {k} have answered" in tour
    assert f"{k} under `make run`" in tour and f"shows n = {k}." in tour
    assert f"fewer than k = {k} under `make run`" in (ROOT / "docs" / "api.md").read_text()


def test_architecture_states_the_release_task_limits_of_the_code():
    from privacy.tasks import RELEASE_SOFT_TIME_LIMIT, RELEASE_TIME_LIMIT

    text = (ROOT / "docs" / "architecture.md").read_text()
    assert f"soft/hard time limits {RELEASE_SOFT_TIME_LIMIT}/{RELEASE_TIME_LIMIT} s" in text


APP_IMPORT = re.compile(r"^\s*(from|import) (accounts|surveys|privacy)\b", re.M)


def test_architecture_says_how_deniable_is_imported_and_it_holds():
    """``deniable`` imports no app module; the apps import ``deniable`` (docs/architecture.md)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert "`deniable` imports no app module" in text and "The apps import those modules" in text
    for path in (ROOT / "deniable").rglob("*.py"):
        assert not APP_IMPORT.search(path.read_text()), path
    app_files = [
        p for app in ("accounts", "surveys", "privacy") for p in (ROOT / app).rglob("*.py")
    ]
    assert sum("from deniable" in p.read_text() for p in app_files) >= 10


def test_the_krr_f0_variance_is_described_as_what_it_is():
    """docs/formulas.md: the f_v = 0 variance understates 14× at k = 3, ε = 4, f_v = 0.5 and the
    app's planning does not use it."""
    from dpcore.local.designs import KRRDesign
    from dpcore.local.planning import krr_proportion_variance

    design = KRRDesign(3, 4.0)
    ratio = krr_proportion_variance(design, 100, frequency=0.5) / krr_proportion_variance(
        design, 100
    )
    text = (ROOT / "docs" / "formulas.md").read_text()
    assert f"({round(ratio)}× at k = 3, ε = 4, f_v = 0.5)" in text
    assert "used for planning" not in text
    for app in ("surveys", "privacy"):
        for path in (ROOT / app).rglob("*.py"):
            assert "krr_variance" not in path.read_text(), path


def test_the_accounting_tightness_quoted_is_the_measured_one():
    """docs/formulas.md quotes the largest "ours ÷ exact" of bench/RESULTS.md §5b (rounded up)
    and does not call it certified."""
    results = (ROOT / "bench" / "RESULTS.md").read_text()
    table = results[results.index("### Tightness at δ = 1e-5") :]
    table = table[: table.index("\n\n", table.index("|---"))]
    rows = [line for line in table.splitlines() if line.startswith("|")][2:]
    ratios = [float(row.split("|")[4]) for row in rows]
    worst = math.ceil(max(ratios) * 1e4) / 1e4
    text = (ROOT / "docs" / "formulas.md").read_text()
    assert f"≤ {worst:.4f}× the exact ε by direct" in text
    assert "not certified when a release is charged" in text


def test_input_limits_state_the_text_limits_of_the_code():
    from dpcore.local.designs import MAX_INNOCUOUS_TEXT
    from surveys.definitions.specs import MAX_OPTION_LENGTH, TITLE_MAX
    from surveys.definitions.translations import TEXT_MAX

    text = (ROOT / "docs" / "input-limits.md").read_text()
    assert f"| `title` (and each translation's title) | {TITLE_MAX} characters |" in text
    assert f"their translations; a translated `innocuous_text`) | {TEXT_MAX:,} characters |" in text
    assert f"| a crosswise design's `innocuous_text` | {MAX_INNOCUOUS_TEXT} characters |" in text
    assert f"| each option (and its translated label) | {MAX_OPTION_LENGTH} characters |" in text


# A command to paste: `manage.py …` or `python manage.py …` alone fails outside the venv
# ("No module named 'django'", issue 22 item 14). Allowed: the venv's python, docker compose
# (the image has its python on PATH), and prose naming what a service or target runs.
BARE_MANAGE = re.compile(r"(?<![\w/.])(?:python3? )?manage\.py [a-z_]+")
PROSE = ("docker compose", "`make lint`", "`migrate` |", "check --deploy")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_manage_py_command_works_when_pasted(doc):
    for number, line in enumerate(doc.read_text().splitlines(), start=1):
        if any(marker in line for marker in PROSE):
            continue
        for match in BARE_MANAGE.finditer(line):
            before = line[: match.start()]
            assert before.endswith(".venv/bin/python "), f"{doc.name}:{number}: {line.strip()}"


# Shell variables the README's and exports.md's snippets set for the reader, not settings.
SNIPPET_VARIABLES = {"DENIABLE_SURVEY", "DENIABLE_TOKEN", "DENIABLE_URL"}
READS_ENV = (r'env\.[a-z]+\(\s*"{name}"', r'environ\.get\(\s*"{name}"', r'environ\["{name}"\]')


def test_every_setting_the_docs_name_is_read_from_the_environment():
    """A `DENIABLE_*` name in the docs is something an operator sets; one that the settings only
    read with a getattr default (DENIABLE_XLSFORM_MAX_BYTES, DENIABLE_REGRESSION_SYNC_LIMIT
    were) did nothing when set in the environment."""
    named = set()
    for doc in DOCS:
        named |= set(re.findall(r"\bDENIABLE_[A-Z0-9_]+\b", doc.read_text()))
    sources = [
        p.read_text()
        for folder in ("deniable", "surveys", "privacy", "accounts", "audit", "testsupport")
        for p in (ROOT / folder).rglob("*.py")
    ]
    sources.append((ROOT / "tests" / "conftest.py").read_text())
    code = "\n".join(sources)
    unread = sorted(
        name
        for name in named - SNIPPET_VARIABLES
        if not any(re.search(pattern.format(name=name), code) for pattern in READS_ENV)
    )
    assert unread == []
