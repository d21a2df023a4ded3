"""Offline answering, server side (surveys/pages/offline.py; docs/respondent-pages.md#offline):
the service worker at /s/sw.js (its scope can be no wider than /s/), each survey's manifest, and
the respondent page's links to them, in English and Spanish. The worker itself runs in Chromium:
tests/e2e/test_respondent_offline.py."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.definitions.demo_translations import with_spanish
from surveys.management.commands.seed_demo import DEMO_SURVEY
from surveys.pages import offline
from surveys.services import survey_close
from tests.surveys.pages.support import make_survey
from testsupport import factories

pytestmark = pytest.mark.django_db

WORKER = Path(settings.BASE_DIR) / "static" / "js" / "sw.js"


def test_the_worker_is_served_from_s_with_its_source_and_no_cache(client):
    response = client.get("/s/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    assert response.content == WORKER.read_bytes()
    # A worker's scope can be no wider than its script's folder: /s/, never the site.
    assert "Service-Worker-Allowed" not in response
    assert reverse("respond-worker") == "/s/sw.js"
    assert offline.WORKER_SCOPE == "/s/"
    # Served under the site's CSP like every dynamic response.
    assert "script-src" in response["Content-Security-Policy"]


def test_the_worker_source_falls_back_to_the_collected_files(monkeypatch, settings, tmp_path):
    """A deployment that ships only STATIC_ROOT (no static folders to find) still serves it."""
    from django.contrib.staticfiles import finders

    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "sw.js").write_bytes(b"/* collected */")
    settings.STATIC_ROOT = str(tmp_path)  # Django's test signal resets the storage
    monkeypatch.setattr(finders, "find", lambda path: None)
    offline._worker_source.cache_clear()
    try:
        assert offline._worker_source() == b"/* collected */"
    finally:
        offline._worker_source.cache_clear()


def test_worker_and_manifest_carry_the_site_headers(client, survey):
    for url in ("/s/sw.js", reverse("respond-manifest", args=[survey.slug])):
        response = client.get(url)
        assert response["X-Content-Type-Options"] == "nosniff", url
        assert response["Cross-Origin-Resource-Policy"] == "same-origin", url
        assert "default-src 'self'" in response["Content-Security-Policy"], url


def test_the_worker_only_answers_get(client):
    assert client.post("/s/sw.js").status_code == 405


def test_the_worker_keeps_respondent_pages_and_static_files_only():
    """What it may keep is decided by one test of the URL: a respondent page or a static file of
    this origin, and a response the server did not mark no-store; no API path is ever kept."""
    source = WORKER.read_text(encoding="utf-8")
    assert "const PAGE = /^\\/s\\/[a-z0-9_-]+\\/$/i;" in source
    assert 'url.pathname.startsWith("/static/")' in source
    assert '!/no-store/i.test(response.headers.get("Cache-Control")' in source
    assert 'if (request.method !== "GET") return;' in source
    assert "/api/" not in source.split("*/", 1)[1]  # outside the header comment: never named


def test_manifest_names_the_survey_and_its_page(client, survey):
    response = client.get(reverse("respond-manifest", args=[survey.slug]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json; charset=utf-8"
    body = json.loads(response.content)
    page = f"/s/{survey.slug}/"
    assert body["name"] == "Campus life"
    assert body["start_url"] == page and body["scope"] == page and body["id"] == page
    assert body["display"] == "standalone"
    assert body["lang"] == "en"
    (icon,) = body["icons"]
    assert icon["src"].endswith("favicon.svg") and icon["sizes"] == "any"
    # The same document for every respondent: nothing in it names one.
    assert client.get(reverse("respond-manifest", args=[survey.slug])).content == response.content


def test_manifest_of_a_draft_or_unknown_survey_is_404(client, alice):
    draft = make_survey(alice, open_=False)
    assert client.get(reverse("respond-manifest", args=[draft.slug])).status_code == 404
    assert client.get("/s/no-such-survey/manifest.webmanifest").status_code == 404


def test_manifest_in_spanish(client):
    body = with_spanish(copy.deepcopy(DEMO_SURVEY))
    survey = factories.make_survey(factories.ensure_user("alice", "pw-alice-123"), body)
    response = client.get(reverse("respond-manifest", args=[survey.slug]) + "?lang=es")
    manifest = json.loads(response.content)
    assert manifest["lang"] == "es"
    assert manifest["name"] == "Vida en el campus (demo)"
    assert manifest["start_url"] == f"/s/{survey.slug}/?lang=es"


def test_the_page_links_its_manifest_and_names_the_worker(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert f'<link rel="manifest" href="/s/{survey.slug}/manifest.webmanifest">' in html
    data = json.loads(re.search(r'id="survey-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    assert data["worker_url"] == "/s/sw.js" and data["worker_scope"] == "/s/"
    # The waiting states are on the page, hidden until the script shows them.
    assert 'id="queued" class="notice warn" hidden tabindex="-1" role="status"' in html
    assert 'id="queued-refused" class="notice bad" hidden tabindex="-1" role="alert"' in html
    assert "Saved on this device — will be sent" in html
    strings = json.loads(
        re.search(r'id="respond-strings"[^>]*>(.*?)</script>', html, re.S).group(1)
    )
    assert "closed before your answers could be sent" in strings["queued_closed"]


def test_the_page_says_it_in_spanish(client):
    body = with_spanish(copy.deepcopy(DEMO_SURVEY))
    survey = factories.make_survey(factories.ensure_user("alice", "pw-alice-123"), body)
    html = client.get(reverse("respond", args=[survey.slug]) + "?lang=es").content.decode()
    assert "Guardadas en este dispositivo" in html
    assert "No se contaron tus respuestas" in html
    strings = json.loads(
        re.search(r'id="respond-strings"[^>]*>(.*?)</script>', html, re.S).group(1)
    )
    assert strings["queued_closed"].startswith("La encuesta se cerró")


def test_the_preview_registers_no_worker_and_links_no_manifest(client, alice, survey):
    client.force_login(alice)
    html = client.get(reverse("survey-preview", args=[survey.slug])).content.decode()
    assert 'rel="manifest"' not in html
    data = json.loads(re.search(r'id="survey-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    assert data["worker_url"] is None


def test_a_closed_survey_keeps_its_manifest_and_page_says_closed(client, survey):
    """A device that kept the page learns the survey closed when it sends (409): the page the
    worker fetches online is the closed message, which replaces its copy."""
    survey_close(survey=survey)
    assert client.get(reverse("respond-manifest", args=[survey.slug])).status_code == 200
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "This survey is closed" in html
