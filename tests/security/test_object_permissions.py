"""Object-level permissions over the whole URLconf, not a hand-written list.

Every route is enumerated from the resolver. Routes with an object parameter (``<slug>``,
``<release_id>``, …) are filled with researcher A's objects and requested by researcher B — with a
session and with an API token, with every method — and must answer 403/404/405, never 2xx and
never 5xx. Anonymous requests to anything but the public allowlist must be refused (401/403/405)
or sent to the login page. A new route with an unknown parameter fails until it gets a filler
here; a new route that leaks fails outright.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import clear_url_caches

from accounts.models import ApiToken, ResearcherSession, SignupInvitation
from accounts.services import signup_invitation_create
from surveys.models import Collaborator, Invitation, Survey, Webhook
from tests.security.support import Route, World, walk_urlconf
from testsupport.factories import make_api_token

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")

# Routes anyone may call, by name. Everything else is a researcher's.
PUBLIC = {
    "home",
    "login",
    "respond",
    "respond-submit",
    "respond-thanks",
    # Offline answering: the worker script and a survey's manifest (its public title only).
    "respond-worker",
    "respond-manifest",
    "api-survey-responses",
    # A respondent checks their own invitation before answering; it reveals only valid/invalid
    # for a token they hold, and consumes nothing.
    "api-survey-invitations-check",
    "api-auth-token",
    # Account pages for visitors (accounts.urls): sign-up refuses without an invitation unless
    # open sign-up is on; reset links are Django's signed, expiring tokens.
    "signup",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    # Single sign-on (accounts.oidc_views): a visitor starts it and comes back to the callback;
    # both 404 while it is off (tests/accounts/test_oidc.py).
    "oidc-authenticate",
    "oidc-callback",
    "healthz",
    "api-schema",
    "api-docs",
}

# Plausible bodies, so that a view which validated its input before checking ownership would
# answer B with 2xx (a leak) rather than hide behind a 400.
BODIES: dict[str, dict[str, Any]] = {
    "api-survey": {"title": "hijacked"},
    "api-survey-invitations": {"count": 1},
    "survey-invitations": {"count": 1},
    "survey-invitations-revoke": {"confirm": "yes"},
    "privacy-survey-releases": {"mechanism": "laplace", "epsilon": 0.1},
    "privacy-release-preview": {"mechanism": "laplace", "epsilon": 0.1},
    "api-survey-collaborators": {"username": "carol", "role": "editor"},
    "survey-share": {"username": "carol", "role": "editor"},
    "survey-unshare": {"username": "vera"},
    "survey-slug": {"slug": "hijacked-slug"},
    "survey-population-shares": {"poststratify": "age", "shares": "young:0.5,old:0.5"},
    "api-survey-webhooks": {"url": "https://example.org/hook"},
}


def _fillers(w: World) -> dict[str, str]:
    return {
        "slug": w.survey.slug,
        "release_id": str(w.release.pk),
        "token_id": str(ApiToken.objects.filter(user=w.alice).values_list("pk", flat=True)[0]),
        "invitation_id": str(_invitation(w).pk),
        "username": w.viewer.username,
        "webhook_id": str(_webhook(w).pk),
        "session_id": str(_session_of(w.alice).pk),
    }


def _webhook(w: World) -> Webhook:
    """A hook of the walk's survey (re-made if the owner's DELETE took it)."""
    hook, _ = Webhook.objects.get_or_create(
        survey=w.survey, url="https://example.org/hook", defaults={"secret": "s" * 64}
    )
    return hook


def _session_of(user: Any) -> ResearcherSession:
    """One of the user's signed-in sessions (a session login makes one, accounts.sessions)."""
    found = ResearcherSession.objects.filter(user=user).first()
    if found is None:
        Client().force_login(user)
        found = ResearcherSession.objects.get(user=user)
    return found


def _invitation(w: World) -> SignupInvitation:
    """An unused sign-up invitation issued by an administrator (neither A nor B is staff)."""
    found = SignupInvitation.objects.filter(used__isnull=True).first()
    return found or signup_invitation_create(email="new@example.org", created_by=None).invitation


# Routes whose GET needs a query parameter: the field the owner's bare GET is refused for.
NEEDS_QUERY = {"api-survey-regression": "outcome", "api-survey-correlation": "x"}
# Routes whose GET needs a closed survey (the walk's owner uses a draft): the 409's code.
NEEDS_CLOSED = {"api-survey-export-shuffled": "survey_open"}


def _routes() -> list[Route]:
    routes = [r for r in walk_urlconf() if r.namespace != "admin"]
    assert all(not r.is_regex for r in routes), "regex routes need their own handling here"
    return routes


def _object_routes() -> list[Route]:
    return [r for r in _routes() if r.params and r.name not in PUBLIC]


def _request(client: Client, method: str, url: str, name: str | None, **extra: Any):
    body = BODIES.get(name or "", {})
    if name and not name.startswith(("api-", "privacy-")):  # pages take form posts
        return getattr(client, method)(url, body if method == "post" else None, **extra)
    if method == "get":
        return client.get(url, **extra)
    return getattr(client, method)(url, json.dumps(body), content_type="application/json", **extra)


def _clients(w: World) -> dict[str, Client]:
    session = Client()
    session.force_login(w.bob)
    return {"session": session, "token": Client(HTTP_AUTHORIZATION=f"Token {w.token_b}")}


def test_allowlist_and_fillers_are_current():
    names = {r.name for r in _routes()}
    assert PUBLIC <= names, f"stale PUBLIC entries: {sorted(PUBLIC - names)}"
    assert set(BODIES) <= names, f"stale BODIES entries: {sorted(set(BODIES) - names)}"
    assert set(NEEDS_QUERY) <= names, f"stale NEEDS_QUERY: {sorted(set(NEEDS_QUERY) - names)}"
    assert set(NEEDS_CLOSED) <= names, f"stale NEEDS_CLOSED: {sorted(set(NEEDS_CLOSED) - names)}"
    # Every object route can be filled (a new parameter name fails here, naming the route).
    for route in _object_routes():
        route.url(
            {
                "slug": "x",
                "release_id": "x",
                "token_id": "1",
                "invitation_id": "1",
                "username": "x",
                "webhook_id": "1",
                "session_id": "1",
            }
        )


def test_the_walk_covers_the_known_researcher_routes():
    """A floor, so that a resolver change cannot silently empty the walk."""
    names = {r.name for r in _object_routes()}
    assert {
        "survey-detail",
        "survey-edit",
        "survey-open",
        "survey-close",
        "survey-invitations",
        "api-survey",
        "api-survey-open",
        "api-survey-close",
        "api-survey-invitations",
        "api-survey-invitations-revoke",
        "survey-invitations-revoke",
        "api-survey-export",
        "api-survey-export-metadata",
        "api-survey-export-shuffled",
        "api-survey-estimates",
        "privacy-survey-releases",
        "privacy-release-preview",
        "privacy-survey-budget",
        "privacy-release-detail",
        "api-survey-duplicate",
        "api-survey-archive",
        "api-survey-collaborators",
        "api-survey-collaborator",
        "survey-preview",
        "survey-delete",
        "survey-share",
        "api-auth-token-detail",
        "account-token-revoke",
        "account-invitation-revoke",
        "account-session-revoke",
        "api-auth-session-detail",
    } <= names
    assert len(_object_routes()) >= 15


def test_owner_control_the_filled_urls_are_real(world):
    """A's own GETs succeed: B's 404s below are about ownership, not about broken URLs."""
    client = Client()
    client.force_login(world.alice)
    fillers = _fillers(world) | {"slug": world.draft.slug}
    for route in _object_routes():
        url = route.url(fillers)
        response = client.get(url)
        status = response.status_code
        if route.name in NEEDS_QUERY:
            # Past the ownership check the view validates its required query: a 400 naming it.
            assert status == 400, f"owner GET {url} → {status}"
            assert NEEDS_QUERY[route.name] in response.json()["errors"], response.content
            continue
        if route.name in NEEDS_CLOSED:
            # Past the ownership check the view refuses the draft's state: a 409 naming it.
            assert status == 409, f"owner GET {url} → {status}"
            assert response.json()["error"] == NEEDS_CLOSED[route.name], response.content
            continue
        assert status in (200, 302, 405), f"owner GET {url} → {status}"
    token = Client(HTTP_AUTHORIZATION=f"Token {world.token_a}")
    assert token.get(f"/api/v1/releases/{world.release.pk}/").status_code == 200
    assert token.get(f"/api/v1/surveys/{world.survey.slug}/").status_code == 200


def find_leaks(world: World) -> tuple[list[str], int]:
    """B's requests to every object route of the active URLconf; returns (leaks, requests)."""
    fillers = _fillers(world)
    leaks: list[str] = []
    count = 0
    for route in _object_routes():
        url = route.url(fillers)
        for auth, client in _clients(world).items():
            for method in METHODS:
                response = _request(client, method, url, route.name)
                status = response.status_code
                count += 1
                # An API token is no page credential: pages treat it as anonymous.
                to_login = (
                    auth == "token"
                    and status == 302
                    and response["Location"].startswith("/accounts/login/")
                )
                if status not in (403, 404, 405) and not to_login:
                    leaks.append(f"{auth} {method.upper()} {url} ({route.name}) → {status}")
    return leaks, count


def test_second_researcher_gets_404_or_403_everywhere(world):
    leaks, count = find_leaks(world)
    assert not leaks, "researcher B reached A's objects:\n" + "\n".join(leaks)
    assert count == len(_object_routes()) * 2 * len(METHODS)
    # Nothing of A's changed hands or state.
    world.survey.refresh_from_db()
    world.draft.refresh_from_db()
    assert world.survey.status == "open" and world.draft.status == "draft"
    assert world.draft.title == "Alice draft survey"
    assert Invitation.objects.filter(survey__owner=world.alice).count() == 0
    assert world.release.survey.releases.count() == 1
    assert Survey.objects.filter(owner=world.bob).count() == 1  # B duplicated nothing
    assert set(world.survey.collaborators.values_list("user__username", flat=True)) == {
        "vera",
        "eddie",
    }
    assert ApiToken.objects.filter(user=world.alice).count() == 1
    assert SignupInvitation.objects.filter(used__isnull=True).count() == 1


@override_settings(ROOT_URLCONF="tests.security.leaky_urls")
def test_the_walk_catches_a_leaking_endpoint(world):
    """Mutation check: the project's URLconf plus one endpoint that forgets the owner."""
    clear_url_caches()
    try:
        leaks, _ = find_leaks(world)
    finally:
        clear_url_caches()
    assert leaks and all("(leaky-survey-title)" in leak for leak in leaks)
    assert any(leak.startswith("session GET") and leak.endswith("200") for leak in leaks)


def test_lists_show_a_second_researcher_nothing_of_the_first(world):
    """Routes without an object parameter (lists, create, design preview) must not mention A's
    surveys or releases in what they return to B."""
    secrets = [
        world.survey.slug,
        world.survey.title,
        world.draft.slug,
        world.invite.slug,
        str(world.release.pk),
    ]
    for route in _routes():
        if route.params or route.name in PUBLIC or route.name == "logout":
            continue
        for auth, client in _clients(world).items():
            response = client.get("/" + route.route)
            body = response.content.decode(errors="replace")
            assert response.status_code < 500
            for secret in secrets:
                assert secret not in body, f"{auth} GET /{route.route} shows {secret!r}"


def test_anonymous_is_refused_everywhere_but_the_public_routes(world):
    fillers = _fillers(world)
    bad: list[str] = []
    count = 0
    for route in _routes():
        if route.name in PUBLIC:
            continue
        url = route.url(fillers)
        for method in METHODS:
            response = _request(Client(), method, url, route.name)
            count += 1
            status = response.status_code
            to_login = status == 302 and response["Location"].startswith("/accounts/login/")
            if not (status in (401, 403, 405) or to_login):
                bad.append(f"anonymous {method.upper()} {url} ({route.name}) → {status}")
    assert not bad, "\n".join(bad)
    assert count >= 20 * len(METHODS)


# --- roles: every survey-scoped route × method × {stranger, viewer, editor, owner} ----------------

# The need of every (route, method) a survey's team can call (docs/teams.md#roles). Any other
# method must be a 405 for everyone; a new route or method fails the walk until it is listed.
NEED: dict[tuple[str, str], str] = {
    # pages
    ("survey-detail", "get"): "view",
    ("survey-results", "get"): "view",
    ("survey-analysis", "get"): "view",
    ("survey-releases", "get"): "view",
    ("survey-sharing", "get"): "view",
    ("survey-preview", "get"): "view",
    ("survey-preview", "post"): "view",
    ("survey-invitations", "get"): "view",
    ("survey-edit", "get"): "edit",
    ("survey-open", "post"): "edit",
    ("survey-close", "post"): "edit",
    ("survey-invitations", "post"): "edit",
    ("survey-invitations-revoke", "post"): "edit",
    ("survey-duplicate", "post"): "edit",
    ("survey-slug", "post"): "edit",
    ("survey-population-shares", "post"): "edit",  # docs/analysis.md#post-stratification
    ("survey-archive", "post"): "own",
    ("survey-unarchive", "post"): "own",
    ("survey-delete", "get"): "own",
    ("survey-delete", "post"): "own",
    ("survey-share", "post"): "own",
    ("survey-unshare", "post"): "own",
    ("survey-audit", "get"): "own",  # docs/accounts.md#audit
    # API
    ("api-survey", "get"): "view",
    ("api-survey-estimates", "get"): "view",
    ("api-survey-export", "get"): "view",
    # The shuffled file (docs/exports.md#the-shuffled-file): a read, like the export.
    ("api-survey-export-shuffled", "get"): "view",
    # The survey as an XLSForm, like any read of its definition (docs/xlsform.md).
    ("api-survey-xlsform", "get"): "view",
    ("api-survey-export-metadata", "get"): "view",
    ("api-survey-regression", "get"): "view",
    ("api-survey-correlation", "get"): "view",
    ("api-survey-invitations", "get"): "view",
    ("api-survey-collaborators", "get"): "view",
    ("privacy-survey-budget", "get"): "view",
    ("privacy-survey-releases", "get"): "view",
    ("privacy-release-preview", "post"): "view",
    ("privacy-release-detail", "get"): "view",
    ("api-survey", "patch"): "edit",
    ("api-survey-open", "post"): "edit",
    ("api-survey-close", "post"): "edit",
    ("api-survey-invitations", "post"): "edit",
    ("api-survey-invitations-revoke", "post"): "edit",
    ("api-survey-duplicate", "post"): "edit",
    ("api-survey", "delete"): "own",
    ("api-survey-archive", "post"): "own",
    ("api-survey-unarchive", "post"): "own",
    ("api-survey-collaborators", "post"): "own",
    ("api-survey-collaborator", "delete"): "own",
    ("api-survey-audit", "get"): "own",
    ("api-survey-webhooks", "get"): "own",  # docs/api.md#webhooks
    ("api-survey-webhooks", "post"): "own",
    ("api-survey-webhook", "delete"): "own",
    ("privacy-survey-releases", "post"): "own",  # only the owner spends the budget
}
RANK = {"stranger": 0, "viewer": 1, "editor": 2, "owner": 3}
NEED_RANK = {"view": 1, "edit": 2, "own": 3}


def _role_clients(w: World) -> dict[str, Client]:
    users = {"stranger": w.bob, "viewer": w.viewer, "editor": w.editor, "owner": w.alice}
    clients = {}
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        clients[role] = client
    return clients


def _keep_team(w: World) -> None:
    """The walk's owner may remove the viewer (unshare) or the editor may close the survey;
    memberships are put back before every request so each check meets the same team."""
    for user, role in ((w.viewer, "viewer"), (w.editor, "editor")):
        Collaborator.objects.update_or_create(survey=w.survey, user=user, defaults={"role": role})


def _expected(need: str | None, role: str, status: int) -> str | None:
    """None when ``status`` is right for ``role`` on a route needing ``need``, else why not."""
    if need is None:
        return None if status == 405 else "expected 405 (method not listed in NEED)"
    if role == "stranger":
        return None if status == 404 else "expected 404 for a stranger"
    if RANK[role] < NEED_RANK[need]:
        return None if status == 403 else f"expected 403 ({role} lacks {need})"
    if status in (403, 404, 405) or status >= 500:
        return f"expected success or a 400/409 past the check ({role} may {need})"
    return None


def test_every_survey_route_enforces_its_role_for_every_member(world):
    """The resolver walk: each survey-scoped route and method against a stranger (404), the
    members whose role is too low (403) and those whose role suffices (past the check: 2xx, 3xx,
    or the view's own 400/409). A route or method missing from NEED fails here."""
    # Survey-scoped: a survey's slug or one of its releases. Account routes (a token's or a
    # sign-up invitation's id) belong to one user, not a team; the walk above covers them.
    routes = [r for r in _object_routes() if {"slug", "release_id"} & set(r.params)]
    names = {r.name for r in routes}
    assert {name for name, _ in NEED} <= names, sorted({n for n, _ in NEED} - names)
    fillers = _fillers(world)
    clients = _role_clients(world)
    bad: list[str] = []
    checked = 0
    for route in routes:
        url = route.url(fillers)
        for method in METHODS:
            need = NEED.get((route.name or "", method))
            for role, client in clients.items():  # stranger, viewer, editor, owner
                _keep_team(world)
                response = _request(client, method, url, route.name)
                why = _expected(need, role, response.status_code)
                checked += 1
                if why:
                    bad.append(
                        f"{role} {method.upper()} {url} ({route.name}) → "
                        f"{response.status_code}: {why}"
                    )
                elif need and role != "stranger" and response.status_code == 403:
                    body = response.json() if route.name.startswith(("api-", "privacy-")) else {}
                    assert body.get("error", "forbidden") == "forbidden"
    assert not bad, "\n".join(bad)
    assert checked == len(routes) * len(METHODS) * 4


def test_forbidden_is_json_naming_the_role(world):
    client = Client(HTTP_AUTHORIZATION=f"Token {make_api_token(world.viewer)}")
    response = client.post(
        f"/api/v1/surveys/{world.survey.slug}/releases/",
        json.dumps({"mechanism": "laplace", "epsilon": 0.1}),
        content_type="application/json",
    )
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "forbidden" and body["role"] == "viewer" and body["needs"] == "own"
    assert "owner" in body["detail"]
    assert world.survey.releases.count() == 1  # nothing was charged
