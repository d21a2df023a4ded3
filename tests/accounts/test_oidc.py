"""Single sign-on against a real OpenID provider (npm's oidc-provider under Node, started here;
docs/accounts.md#sso): the authorization-code flow with PKCE creates or finds a researcher, and
every check the library leaves to us refuses what it must — another audience, another issuer,
another (or a replayed) nonce, an expired token, a replayed state, a wrong PKCE verifier, an
unverified email, a domain or group not allowed. Staff still pass the two-factor gate."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.test import Client, override_settings

from accounts.models import ApiToken, OidcIdentity, ResearcherSession
from tests.accounts.oidc_support import DOMAIN, GROUP, refused, sso, start
from tests.accounts.two_factor_support import enrol, next_code

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sso_on")]


def test_the_full_flow_with_pkce_creates_a_researcher_then_finds_it(provider):
    client = Client()
    authorize = parse_qs(urlsplit(start(client)).query)
    assert authorize["response_type"] == ["code"]
    assert authorize["code_challenge_method"] == ["S256"]
    assert len(authorize["code_challenge"][0]) == 43 and authorize["nonce"][0]
    assert authorize["state"][0] and authorize["client_id"] == ["deniable"]

    response, _ = sso(client, provider, email=f"ana@{DOMAIN}")
    assert response.status_code == 302 and response["Location"] == "/surveys/"
    ana = User.objects.get(email=f"ana@{DOMAIN}")
    assert client.session[SESSION_KEY] == str(ana.pk)
    assert ana.username == "ana" and not ana.is_staff and not ana.has_usable_password()
    assert OidcIdentity.objects.get(user=ana).subject == f"sub-ana@{DOMAIN}"
    assert ResearcherSession.objects.get(user=ana).via == "sso"
    assert client.get("/surveys/").status_code == 200

    again = Client()
    sso(again, provider, email=f"ana@{DOMAIN}")
    assert again.session[SESSION_KEY] == str(ana.pk)
    assert User.objects.filter(email=f"ana@{DOMAIN}").count() == 1


def test_a_single_sign_on_account_reaches_the_api_by_a_token_from_its_page(provider):
    """No password to exchange: the researcher makes a token on the tokens page, signed in by
    the provider, and the API takes it; the sessions API lists the session as "sso"."""
    client = Client()
    sso(client, provider, email=f"ana@{DOMAIN}")
    refused_exchange = client.post(
        "/api/v1/auth/token/",
        {"username": "ana", "password": "any-password-at-all-2024"},
        content_type="application/json",
    )
    assert refused_exchange.status_code == 400 and not ApiToken.objects.exists()
    assert "non_field_errors" in refused_exchange.json()["errors"]
    made = client.post("/accounts/tokens/", {"name": "notebook", "expires_in_days": "10"})
    key = re.search(r'id="new-token">(dnb_[^<]+)<', made.content.decode()).group(1)
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/surveys/").status_code == 200
    (listed,) = api.get("/api/v1/auth/sessions/").json()
    assert listed["via"] == "sso" and listed["current"] is False
    assert client.get("/api/v1/auth/sessions/").json()[0]["current"] is True


def test_an_existing_account_is_linked_by_its_verified_email(provider, carol):
    carol.email = f"carol@{DOMAIN}"
    carol.save()
    client = Client()
    sso(client, provider, email=f"carol@{DOMAIN}")
    assert client.session[SESSION_KEY] == str(carol.pk)
    assert OidcIdentity.objects.get().user == carol


def test_a_member_of_an_allowed_group_gets_in_from_another_domain(provider):
    client = Client()
    sso(client, provider, email="guest@partner.example", groups=GROUP)
    assert SESSION_KEY in client.session


def test_outside_the_allowed_domains_and_groups_no_account_is_made(provider):
    client = Client()
    response, _ = sso(client, provider, email="eve@evil.example", groups="other")
    refused(response, client, "not in a domain or group allowed")
    assert not User.objects.filter(email="eve@evil.example").exists()
    assert not OidcIdentity.objects.exists()


def test_an_unverified_email_is_refused(provider):
    client = Client()
    response, _ = sso(client, provider, email=f"mallory@{DOMAIN}", verified=False)
    refused(response, client, "not verified the email")
    assert not User.objects.exists()


@pytest.mark.parametrize(
    ("claims", "words"),
    [
        ({"aud": "other-app"}, "Audience"),
        ({"aud": ["deniable", "other-app"], "azp": "other-app"}, "another party"),
        ({"iss": "http://evil.example"}, "issuer"),
        ({"nonce": "not-the-one-sent"}, "Nonce"),
        ({"exp": 1_000_000_000}, "expired"),
    ],
)
def test_a_wrong_id_token_is_refused(provider, claims, words):
    """The provider's own key signs the token; only the claims are wrong."""
    provider.tamper(**claims)
    client = Client()
    response, _ = sso(client, provider, email=f"ana@{DOMAIN}")
    refused(response, client, words)
    assert not User.objects.exists()


def test_a_replayed_nonce_is_refused(provider):
    """The attack: an ID token from an earlier sign-in (its nonce) replayed into a new one."""
    first = Client()
    first_nonce = parse_qs(urlsplit(start(first)).query)["nonce"][0]
    provider.tamper(nonce=first_nonce)
    client = Client()
    response, _ = sso(client, provider, email=f"ana@{DOMAIN}")
    refused(response, client, "Nonce")


def test_pkce_a_wrong_verifier_gets_no_token(provider):
    """The provider requires PKCE: a code stolen on its way back is useless without the verifier
    kept in the session that started the sign-in."""
    client = Client()
    query = provider.sign_in(start(client), email=f"ana@{DOMAIN}")
    session = client.session
    session["oidc_states"][query["state"]]["code_verifier"] = "x" * 64
    session.save()
    refused(client.get("/accounts/oidc/callback/", query), client, "did not answer")
    assert not User.objects.exists()


def test_staff_signing_in_by_sso_still_type_their_code(provider, admin):
    admin.email = f"root@{DOMAIN}"
    admin.save()
    device, _ = enrol(admin)
    with override_settings(DENIABLE_OTP_STAFF=True):
        client = Client()
        sso(client, provider, email=f"root@{DOMAIN}", amr="pwd,mfa")
        assert SESSION_KEY in client.session
        gated = client.get("/audit/")
        assert gated.status_code == 302 and "/accounts/two-factor/verify/" in gated["Location"]
        assert client.get("/api/v1/audit/").status_code == 401
        client.post("/accounts/two-factor/verify/", {"code": next_code(device)})
        assert client.get("/audit/").status_code == 200


def test_a_provider_asserted_mfa_counts_only_where_trusted(provider, admin):
    admin.email = f"root@{DOMAIN}"
    admin.save()
    enrol(admin)
    with override_settings(DENIABLE_OTP_STAFF=True, DENIABLE_OIDC_TRUST_MFA=True):
        with_mfa = Client()
        sso(with_mfa, provider, email=f"root@{DOMAIN}", amr="pwd,mfa")
        assert with_mfa.get("/audit/").status_code == 200
        password_only = Client()
        sso(password_only, provider, email=f"root@{DOMAIN}", amr="pwd")
        assert password_only.get("/audit/").status_code == 302


def test_a_password_login_is_not_taken_for_a_callback(provider, carol):
    """The single sign-on backend answers only its callback: a password login carrying
    ``code`` and ``state`` in its URL is an ordinary password login."""
    from tests.accounts.support import PASSWORD

    client = Client()
    response = client.post(
        "/accounts/login/?code=x&state=y", {"username": "carol", "password": PASSWORD}
    )
    assert response.status_code == 302 and client.session[SESSION_KEY] == str(carol.pk)
