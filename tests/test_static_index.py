"""The suite's shared WhiteNoise index (testsupport/static_index.py) serves what WhiteNoise's own
per-chain index would: the same files, the same headers; it is built once per set of settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from testsupport.static_index import build_unshared

ROOT = Path(__file__).resolve().parents[1]


def _served(files: dict) -> dict:
    """url → (path, headers) of each variant a file can be served as."""
    return {
        url: [(path, sorted(headers)) for _regex, path, headers in static.alternatives]
        for url, static in files.items()
    }


def _chain() -> WhiteNoiseMiddleware:
    return WhiteNoiseMiddleware(get_response=lambda request: None)


def test_a_chain_serves_what_whitenoise_itself_indexes() -> None:
    middleware = _chain()
    own = build_unshared(middleware)
    assert "/static/js/builder.js" in own  # the finders' files are there at all
    assert _served(middleware.files) == _served(own)


def test_two_chains_share_one_index() -> None:
    first, second = _chain(), _chain()
    url = "/static/js/builder.js"
    assert first.files is not second.files  # each chain's own dictionary (the STATIC_ROOT files)
    assert first.files[url] is second.files[url]  # holding the one index, built once


@override_settings(WHITENOISE_MAX_AGE=123)
def test_a_setting_the_index_depends_on_gets_its_own_index() -> None:
    middleware = _chain()
    (_regex, _path, headers) = middleware.files["/static/js/builder.js"].alternatives[-1]
    assert ("Cache-Control", "max-age=123, public") in headers
    assert _served(middleware.files) == _served(build_unshared(middleware))


@pytest.mark.django_db
def test_a_client_gets_the_file(client) -> None:
    response = client.get("/" + settings.STATIC_URL.strip("/") + "/js/builder.js")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert body == (ROOT / "static" / "js" / "builder.js").read_bytes()
