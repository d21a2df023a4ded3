"""Every page: strict CSP with nonces (no inline script, handler or style), framing denied,
nosniff, Referrer-Policy, COOP, Permissions-Policy, no-store. The page list is checked against
the URLconf, so a new page without a case here fails the test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.services import signup_invitation_create
from surveys.services import survey_close
from tests.security.support import PASSWORD_B, World, parse_html, physical_post, walk_urlconf

pytestmark = pytest.mark.django_db


@dataclass
class PageCase:
    label: str
    route_name: str | None
    fetch: Callable[[World], Any]
    status: int = 200
    third_party_ui: bool = False  # Swagger UI: inline styles allowed by its own CSP exception
    # The fresh respondent form only: kept by this browser alone, so that Back after sending
    # shows the same one-time submission_id (DESIGN §8.4; tests/e2e/test_respondent_double_submit)
    browser_private: bool = False


def _as(user_attr: str) -> Callable[[World], Client]:
    def make(w: World) -> Client:
        c = Client()
        c.force_login(getattr(w, user_attr))
        return c

    return make


def _get(url_of: Callable[[World], str], who: str | None = None, **extra: Any):
    def fetch(w: World):
        client = _as(who)(w) if who else Client()
        return client.get(url_of(w), **extra)

    return fetch


def _post(url_of: Callable[[World], str], data: Callable[[World], dict], who: str | None = None):
    def fetch(w: World):
        client = _as(who)(w) if who else Client()
        return client.post(url_of(w), data(w))

    return fetch


def _closed(w: World):
    survey_close(survey=w.survey)
    return Client().get(reverse("respond", args=[w.survey.slug]))


def _locked_out(w: World):
    client = Client()
    for _ in range(5):
        response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    return response


def _code_page(w: World):
    """The code page after the password, for a researcher with two-factor login on."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    TOTPDevice.objects.create(user=w.bob, name="app", confirmed=True)
    client = Client()
    client.post(reverse("login"), {"username": "bob", "password": PASSWORD_B})
    return client.get(reverse("two-factor-verify"))


def _staff_audit(w: World):
    w.alice.is_staff = True
    w.alice.save()
    return _as("alice")(w).get(reverse("site-audit"))


def _staff_invitations(w: World):
    w.alice.is_staff = True
    w.alice.save()
    client = _as("alice")(w)
    return client.post(reverse("account-invitations"), {"email": "new@example.org", "days": 3})


def _signup_invited(w: World):
    token = signup_invitation_create(email="new@example.org", created_by=None).token
    return Client().get(reverse("signup"), {"invite": token})


def _reset_confirm(w: World):
    uid = urlsafe_base64_encode(force_bytes(w.alice.pk))
    token = default_token_generator.make_token(w.alice)
    client = Client()
    moved = client.get(reverse("password_reset_confirm", args=[uid, token]))
    assert moved.status_code == 302  # Django moves the token into the session
    return client.get(moved["Location"])


PAGES = [
    PageCase("landing", "home", _get(lambda w: "/")),
    PageCase("login", "login", _get(lambda w: reverse("login"))),
    PageCase(
        "login error",
        "login",
        _post(lambda w: reverse("login"), lambda w: {"username": "x", "password": "y"}),
    ),
    PageCase("lockout", "login", _locked_out, status=429),
    PageCase(
        "respond",
        "respond",
        _get(lambda w: reverse("respond", args=[w.survey.slug])),
        browser_private=True,
    ),
    PageCase(
        "respond invite (?token=)",
        "respond",
        _get(lambda w: reverse("respond", args=[w.invite.slug]) + "?token=abc"),
    ),
    PageCase("respond closed", "respond", _closed),
    PageCase(
        "respond no-JS errors",
        "respond-submit",
        _post(
            lambda w: reverse("respond-submit", args=[w.survey.slug]),
            lambda w: physical_post(**{"q-hours": "999"}),
        ),
        status=400,
    ),
    PageCase(
        "thanks", "respond-thanks", _get(lambda w: reverse("respond-thanks", args=[w.survey.slug]))
    ),
    PageCase("404", None, _get(lambda w: "/s/no-such-survey/"), status=404),
    PageCase("survey list", "researcher-home", _get(lambda w: reverse("researcher-home"), "alice")),
    PageCase("builder new", "survey-new", _get(lambda w: reverse("survey-new"), "alice")),
    PageCase(
        "builder edit",
        "survey-edit",
        _get(lambda w: reverse("survey-edit", args=[w.draft.slug]), "alice"),
    ),
    PageCase(
        "detail (with releases)",
        "survey-detail",
        _get(lambda w: reverse("survey-detail", args=[w.survey.slug]), "alice"),
    ),
    PageCase(
        "results grouped",
        "survey-results",
        _get(
            lambda w: reverse("survey-results", args=[w.survey.slug]) + "?group_by=region", "alice"
        ),
    ),
    *[
        PageCase(
            f"dashboard section: {section}",
            f"survey-{section}",
            _get(lambda w, r=f"survey-{section}": reverse(r, args=[w.survey.slug]), "alice"),
        )
        for section in ("results", "analysis", "releases", "sharing")
    ],
    PageCase(
        "invitations (tokens shown once)",
        "survey-invitations",
        _post(
            lambda w: reverse("survey-invitations", args=[w.invite.slug]),
            lambda w: {"count": 3},
            "alice",
        ),
    ),
    PageCase(
        "invitations counts",
        "survey-invitations",
        _get(lambda w: reverse("survey-invitations", args=[w.invite.slug]), "alice"),
    ),
    PageCase(
        "preview (draft)",
        "survey-preview",
        _get(lambda w: reverse("survey-preview", args=[w.draft.slug]), "alice"),
    ),
    PageCase(
        "preview no-JS post",
        "survey-preview",
        _post(
            lambda w: reverse("survey-preview", args=[w.survey.slug]),
            lambda w: physical_post(),
            "alice",
        ),
    ),
    PageCase(
        "delete confirmation",
        "survey-delete",
        _get(lambda w: reverse("survey-delete", args=[w.draft.slug]), "alice"),
    ),
    PageCase(
        "delete wrong slug",
        "survey-delete",
        _post(
            lambda w: reverse("survey-delete", args=[w.draft.slug]),
            lambda w: {"confirm": "nope"},
            "alice",
        ),
        status=400,
    ),
    PageCase(
        "detail as a viewer",
        "survey-detail",
        _get(lambda w: reverse("survey-detail", args=[w.survey.slug]), "viewer"),
    ),
    PageCase("api docs", "api-docs", _get(lambda w: reverse("api-docs")), third_party_ui=True),
    # Accounts (accounts.urls)
    PageCase("account", "account", _get(lambda w: reverse("account"), "alice")),
    PageCase("api tokens", "account-tokens", _get(lambda w: reverse("account-tokens"), "alice")),
    PageCase(
        "api token created (key shown once)",
        "account-tokens",
        _post(lambda w: reverse("account-tokens"), lambda w: {"expires_in_days": 5}, "alice"),
    ),
    PageCase("sessions", "account-sessions", _get(lambda w: reverse("account-sessions"), "alice")),
    PageCase("sign-up invitations", "account-invitations", _staff_invitations),
    PageCase(
        "survey audit log",
        "survey-audit",
        _get(lambda w: reverse("survey-audit", args=[w.survey.slug]), "alice"),
    ),
    PageCase("site audit log", "site-audit", _staff_audit),
    PageCase(
        "two-factor set-up (QR code)", "two-factor", _get(lambda w: reverse("two-factor"), "alice")
    ),
    PageCase("two-factor code page", "two-factor-verify", _code_page),
    PageCase("sign-up (invitation only)", "signup", _get(lambda w: reverse("signup"))),
    PageCase("sign-up with an invitation", "signup", _signup_invited),
    PageCase(
        "password change", "password_change", _get(lambda w: reverse("password_change"), "alice")
    ),
    PageCase(
        "password changed",
        "password_change_done",
        _get(lambda w: reverse("password_change_done"), "alice"),
    ),
    PageCase("password reset", "password_reset", _get(lambda w: reverse("password_reset"))),
    PageCase("reset sent", "password_reset_done", _get(lambda w: reverse("password_reset_done"))),
    PageCase("reset: new password", "password_reset_confirm", _reset_confirm),
    PageCase(
        "reset complete",
        "password_reset_complete",
        _get(lambda w: reverse("password_reset_complete")),
    ),
]

# Routes that never render an HTML page of their own: POST-then-redirect actions, JSON.
NOT_PAGES = {
    "logout",
    # Single sign-on: redirects to the provider and back (tests/accounts/test_oidc.py).
    "oidc-authenticate",
    "oidc-callback",
    "account-token-revoke",
    "account-session-revoke",
    "account-invitation-revoke",
    "survey-open",
    "survey-close",
    "survey-invitations-revoke",
    "survey-duplicate",
    # The builder's "Import XLSForm": a POST that redirects to the builder or back with its
    # problems (tests/surveys/pages/test_xlsform_import_page.py).
    "survey-import",
    "survey-archive",
    "survey-unarchive",
    "survey-slug",
    # The results page's population-shares form: a POST that redirects back to the results.
    "survey-population-shares",
    "survey-share",
    "survey-unshare",
    "healthz",
    "api-schema",
    # Offline answering's worker script and manifest (not pages; their headers:
    # tests/surveys/pages/test_offline.py).
    "respond-worker",
    "respond-manifest",
}


def test_every_page_route_has_a_case():
    page_routes = {
        r.name
        for r in walk_urlconf()
        if r.namespace != "admin" and not r.route.startswith("api/") and r.name
    } | {"api-docs"}
    covered = {case.route_name for case in PAGES if case.route_name}
    missing = page_routes - covered - NOT_PAGES
    assert not missing, f"pages with no header/CSP case in {__file__}: {sorted(missing)}"
    assert NOT_PAGES <= {r.name for r in walk_urlconf()}, "stale NOT_PAGES entry"


def _csp(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    out: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def assert_security_headers(
    response, *, third_party_ui: bool = False, browser_private: bool = False
) -> dict[str, list[str]]:
    csp = _csp(response)
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert csp["default-src"] == ["'self'"] and csp["form-action"] == ["'self'"]
    script = csp["script-src"]
    assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script
    assert all(s == "'self'" or s.startswith("'nonce-") for s in script), script
    if not third_party_ui:
        assert csp["style-src"] == ["'self'"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]
    if browser_private:
        assert response["Cache-Control"] == "private, no-cache"
    else:
        assert "no-store" in response["Cache-Control"]
    return csp


def assert_no_inline_code(html: str, csp: dict[str, list[str]], *, allow_styles: bool) -> int:
    page = parse_html(html)
    nonces = [s[len("'nonce-") : -1] for s in csp["script-src"] if s.startswith("'nonce-")]
    scripts = 0
    for tag, attrs in page.elements:
        for name, value in attrs.items():
            assert not name.startswith("on"), f"inline handler <{tag} {name}=…>"
            if name in ("href", "src", "action", "formaction"):
                assert not (value or "").strip().lower().startswith("javascript:"), (tag, name)
            if name == "style":
                assert allow_styles, f"inline style attribute on <{tag}>"
        if tag == "script":
            scripts += 1
            assert attrs.get("src") or attrs.get("type") == "application/json", (
                f"inline executable <script> {attrs}"
            )
            if "nonce" in attrs:
                assert attrs["nonce"] in nonces
    if not allow_styles:
        assert not page.inline_styles, "inline <style> element"
    return scripts


@pytest.mark.parametrize("case", PAGES, ids=[c.label for c in PAGES])
def test_page_headers_and_no_inline_code(case: PageCase, world):
    response = case.fetch(world)
    assert response.status_code == case.status, response.content[:500]
    assert response["Content-Type"].startswith("text/html")
    csp = assert_security_headers(
        response, third_party_ui=case.third_party_ui, browser_private=case.browser_private
    )
    html = response.content.decode()
    assert_no_inline_code(html, csp, allow_styles=case.third_party_ui)


def test_pages_with_tokens_are_never_cached(world):
    """Respondent pages (invitation token in the form), invitation links and the API token
    response: ``no-store``, so neither a shared cache nor the back button keeps them."""
    client = Client()
    page = client.get(reverse("respond", args=[world.invite.slug]) + "?token=abc")
    assert "no-store" in page["Cache-Control"]
    token = client.post(
        "/api/v1/auth/token/",
        {"username": "alice", "password": "alice-secure-pw-2024"},
        content_type="application/json",
    )
    assert token.status_code == 200 and "no-store" in token["Cache-Control"]
    api = Client(HTTP_AUTHORIZATION=f"Token {world.token_a}")
    invites = api.post(
        f"/api/v1/surveys/{world.invite.slug}/invitations/",
        {"count": 1},
        content_type="application/json",
    )
    assert invites.status_code == 201 and "no-store" in invites["Cache-Control"]


def test_api_and_json_responses_carry_the_headers_too(world):
    for response in (
        Client().get("/healthz"),
        Client().get("/api/v1/schema/"),
        Client(HTTP_AUTHORIZATION=f"Token {world.token_a}").get("/api/v1/surveys/"),
        Client().post(
            f"/api/v1/surveys/{world.survey.slug}/responses/", {}, content_type="application/json"
        ),
    ):
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
        assert "no-store" in response["Cache-Control"]


def test_static_files_keep_their_cache_headers():
    response = Client().get("/static/js/respond.js")
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
    assert response["X-Content-Type-Options"] == "nosniff"
    list(response.streaming_content)  # close the file


def test_respondents_get_no_session_cookie(world):
    """SESSION_SAVE_EVERY_REQUEST must not start sessions for respondents: nothing links two of
    their requests. Nor does a CSRF cookie any more (issue 11 §10: a year-long ``csrftoken`` rode
    on every submission; the respondent paths are CSRF-exempt,
    surveys.pages.views.respond_submit)."""
    client = Client()
    responses = [
        client.get(reverse("respond", args=[world.survey.slug])),
        client.post(reverse("respond-submit", args=[world.survey.slug]), physical_post()),
        client.get(reverse("respond-thanks", args=[world.survey.slug])),
    ]
    assert [r.status_code for r in responses] == [200, 302, 200]
    assert all("sessionid" not in r.cookies for r in responses)
    assert all(not r.cookies for r in responses) and not client.cookies
