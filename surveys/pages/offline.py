"""Offline answering (docs/respondent-pages.md#offline): the respondent pages' service worker and
each survey's web app manifest, so a survey opened once can be installed and answered with no
network.

- ``GET /s/sw.js``: ``static/js/sw.js``, served from under ``/s/`` because a worker's scope can be
  no wider than its script's folder: ``/s/`` is the widest scope it gets, so it can never control
  a researcher page, the API or anything else outside the respondent pages. ``no-cache``: the
  browser asks for a new version each time it checks.
- ``GET /s/<slug>/manifest.webmanifest``: the survey's name in the page's language, its page as
  ``start_url`` and ``scope``, the site's icon. The same document for every respondent.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import Http404, HttpRequest, HttpResponse
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET

from deniable.errors import NotFound
from surveys.pages import respond_i18n
from surveys.selectors import survey_get_public

WORKER_STATIC_PATH = "js/sw.js"
# Every respondent page lives under /s/; the worker's scope is exactly that folder.
WORKER_SCOPE = "/s/"
THEME_COLOR = "#1f5fa8"  # --accent in static/css/site.css
BACKGROUND_COLOR = "#ffffff"


@cache
def _worker_source() -> bytes:
    """The worker's source: from the static folders (as WhiteNoise serves them in development),
    else from the collected files (a deployment that ships only STATIC_ROOT)."""
    found = finders.find(WORKER_STATIC_PATH)
    path = found[0] if isinstance(found, list) else found
    if path:
        return Path(path).read_bytes()
    with staticfiles_storage.open(WORKER_STATIC_PATH) as handle:
        return bytes(handle.read())


@require_GET
def respond_worker(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def respond_manifest(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        survey = survey_get_public(slug=slug)  # a draft or deleted survey has no manifest either
    except NotFound as exc:
        raise Http404("No such survey.") from exc
    language = respond_i18n.activate(request, survey, list(survey.questions.all()))
    page = reverse("respond", args=[survey.slug])
    title = language.words.title
    body = {
        "id": page,
        "name": title,
        "short_name": title if len(title) <= 30 else title[:29] + "…",
        "lang": language.code,
        "dir": "auto",
        "start_url": page + language.query,
        "scope": page,
        "display": "standalone",
        "background_color": BACKGROUND_COLOR,
        "theme_color": THEME_COLOR,
        "icons": [
            {
                "src": static("favicon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
                "purpose": "any",
            }
        ],
    }
    return HttpResponse(
        json.dumps(body, ensure_ascii=False),
        content_type="application/manifest+json; charset=utf-8",
    )
