"""Under DEBUG (``make run``'s demo command) respondents and researchers get the branded 404
page, never Django's debug 404 listing every URL pattern (issue 22 item 15;
deniable/not_found.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

DEBUG_PAGE = ("Using the URLconf", "URL patterns", "DEBUG = True", "Raised by:")


@pytest.fixture
def debug_on(settings):
    settings.DEBUG = True


def _branded(response) -> None:
    assert response.status_code == 404
    body = response.content.decode()
    assert "We can" in body and "find that page" in body, body[:500]
    for marker in DEBUG_PAGE:
        assert marker not in body, marker


@pytest.mark.usefixtures("debug_on")
@pytest.mark.parametrize(
    "path",
    [
        "/s/no-such-survey/",  # a mistyped survey link: the view raises Http404
        "/s/no-such-survey/thanks/",
        "/no/such/page/",  # no route at all
    ],
)
def test_mistyped_links_get_the_branded_page_under_debug(client, path):
    _branded(client.get(path))


@pytest.mark.usefixtures("debug_on")
def test_a_logged_in_researcher_gets_the_branded_page_under_debug(client, django_user_model):
    user = django_user_model.objects.create_user(username="r404", password="pw-12345678")
    client.force_login(user)
    _branded(client.get("/surveys/no-such-survey/"))


@pytest.mark.usefixtures("debug_on")
def test_spanish_respondents_get_the_spanish_page_under_debug(client):
    response = client.get("/s/no-such-survey/", HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 404
    assert "Using the URLconf" not in response.content.decode()


@pytest.mark.usefixtures("debug_on")
def test_the_api_keeps_its_json_404_under_debug(client):
    response = client.get("/api/v1/no-such-route/")
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "detail": "Not found."}


@pytest.mark.usefixtures("debug_on")
def test_a_missing_slash_still_redirects_under_debug(client):
    response = client.get("/accounts/login")
    assert response.status_code == 301 and response["Location"].endswith("/accounts/login/")


def test_without_debug_the_page_is_the_same(client, settings):
    settings.DEBUG = False
    _branded(client.get("/s/no-such-survey/"))
