"""The project's docs (docs/*.md, README.md): links and anchors resolve, and the API guide lists
every API route."""

from __future__ import annotations

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
    from privacy.api.urls import urlpatterns as privacy_routes
    from surveys.api.urls import urlpatterns as survey_routes

    guide = (ROOT / "docs" / "api.md").read_text()
    for pattern in [*account_routes, *survey_routes, *privacy_routes]:
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
