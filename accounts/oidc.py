"""Single sign-on with OpenID Connect (docs/accounts.md#sso), on mozilla-django-oidc: the
authorization-code flow with PKCE (S256) and a nonce, the provider's endpoints from its discovery
document, and what the library leaves to its users:

* the ID token's issuer, audience (and ``azp``), expiry and signature are checked (the library
  checks only the signature and the nonce);
* only a verified email in an allowed domain, or a member of an allowed group, gets in;
* an account is found by (issuer, subject), else linked once by its verified email, else created
  as a researcher (never staff) with no usable password.

Off unless ``DENIABLE_OIDC_ISSUER`` is set; ``check --deploy`` refuses a half configuration
(accounts.checks). The two-factor gate still applies to a single sign-on session: staff (and
every researcher who turned it on) type their code after the provider, unless
``DENIABLE_OIDC_TRUST_MFA`` is on and the provider says ``"mfa"`` in the ID token's ``amr``.
"""

from __future__ import annotations

import re
from typing import Any

import jwt
import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.models import OidcIdentity

#: The session key saying the provider asserted multi-factor authentication (``amr``).
SSO_MFA_KEY = "_deniable_sso_mfa"
#: The request attribute carrying why a sign-in was refused, for the login page's message.
REFUSAL_ATTR = "_deniable_oidc_refusal"
METADATA_SECONDS = 3600


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be read, or names another issuer."""


def enabled() -> bool:
    return bool(settings.DENIABLE_OIDC_ISSUER)


def metadata() -> dict[str, Any]:
    """The provider's ``/.well-known/openid-configuration``, cached for an hour. Its ``issuer``
    must be exactly the configured one (OpenID Connect Discovery §4.3)."""
    issuer = settings.DENIABLE_OIDC_ISSUER
    key = f"oidc-metadata:{issuer}"
    found = cache.get(key)
    if isinstance(found, dict):
        return found
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ProviderUnavailable(f"The sign-on provider did not answer ({url}).") from exc
    if not isinstance(document, dict) or document.get("issuer") != issuer:
        raise ProviderUnavailable("The sign-on provider's discovery document names another issuer.")
    cache.set(key, document, METADATA_SECONDS)
    return document


def refusal(claims: dict[str, Any]) -> str:
    """Why these (userinfo) claims may not sign in, or "" when they may."""
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        return "the provider gave no email address."
    if claims.get("email_verified") not in (True, "true"):
        return "the provider has not verified the email address."
    domains = {d.lower().lstrip("@") for d in settings.DENIABLE_OIDC_ALLOWED_DOMAINS}
    groups = set(settings.DENIABLE_OIDC_ALLOWED_GROUPS)
    given = claims.get("groups")
    member = isinstance(given, list) and bool(groups & {g for g in given if isinstance(g, str)})
    if email.rsplit("@", 1)[1].lower() in domains or member:
        return ""
    return "this account is not in a domain or group allowed on this server."


def _username_for(email: str) -> str:
    base = re.sub(r"[^\w.@+-]", "", email.split("@")[0])[:140] or "researcher"
    taken = get_user_model().objects.filter(username__iexact=base).exists()
    if not taken:
        return base
    n = 2
    while get_user_model().objects.filter(username__iexact=f"{base}-{n}").exists():
        n += 1
    return f"{base}-{n}"


@transaction.atomic
def account_for(*, issuer: str, subject: str, email: str) -> User:
    """The account of this provider identity: linked before, else the one account with this
    verified email (linked now), else a new researcher account (never staff)."""
    identity = OidcIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject)
    found = identity.first()
    if found is not None:
        return found.user
    model = get_user_model()
    same_email = list(model.objects.filter(email__iexact=email)[:2])
    if len(same_email) > 1:
        raise SuspiciousOperation("two accounts have this email address.")
    if same_email:
        user = same_email[0]
    else:
        user = model.objects.create_user(_username_for(email), email=email)
        user.set_unusable_password()
        user.save(update_fields=["password"])
    OidcIdentity.objects.create(user=user, issuer=issuer, subject=subject)
    return user


class DeniableOIDCBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend with the checks listed in the module's docstring. Asked
    only by the callback view (it alone passes ``nonce``); every other login skips it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No settings are read here: Django makes a backend for every session's get_user, with
        # single sign-on off too. The provider's endpoints are looked up when a sign-in needs them.
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = "RS256"
        self.OIDC_RP_IDP_SIGN_KEY = None
        self.UserModel = get_user_model()

    @property
    def OIDC_OP_TOKEN_ENDPOINT(self) -> str:
        return str(metadata()["token_endpoint"])

    @property
    def OIDC_OP_USER_ENDPOINT(self) -> str:
        return str(metadata()["userinfo_endpoint"])

    @property
    def OIDC_OP_JWKS_ENDPOINT(self) -> str:
        return str(metadata()["jwks_uri"])

    def authenticate(self, request: Any, **kwargs: Any) -> User | None:
        if request is None or not enabled() or "nonce" not in kwargs:
            return None
        return super().authenticate(request, **kwargs)

    def _verify_jws(self, payload: Any, key: Any) -> dict[str, Any]:
        if jwt.get_unverified_header(payload).get("alg") != "RS256":
            raise SuspiciousOperation("the ID token is not signed with RS256.")
        try:
            claims = jwt.decode(
                payload,
                key,
                algorithms=["RS256"],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=settings.DENIABLE_OIDC_ISSUER,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
                leeway=60,
            )
        except jwt.InvalidTokenError as exc:
            raise SuspiciousOperation(f"the ID token was refused ({exc}).") from exc
        audience = claims["aud"]
        if isinstance(audience, list) and len(audience) > 1:
            if claims.get("azp") != self.OIDC_RP_CLIENT_ID:
                raise SuspiciousOperation("the ID token was issued to another party (azp).")
        return dict(claims)

    def verify_token(self, token: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return dict(super().verify_token(token, **kwargs))
        except SuspiciousOperation as exc:
            setattr(self.request, REFUSAL_ATTR, str(exc))
            raise

    def get_or_create_user(self, access_token: Any, id_token: Any, payload: Any) -> User | None:
        claims = self.get_userinfo(access_token, id_token, payload)
        if not isinstance(claims, dict) or claims.get("sub") != payload.get("sub"):
            raise SuspiciousOperation("the provider's userinfo is about someone else.")
        why = refusal(claims)
        if why:
            setattr(self.request, REFUSAL_ATTR, why)
            raise SuspiciousOperation(why)
        user = account_for(
            issuer=str(payload["iss"]), subject=str(payload["sub"]), email=claims["email"]
        )
        amr = payload.get("amr")
        user.deniable_amr = [str(a) for a in amr] if isinstance(amr, list) else []  # type: ignore[attr-defined]
        return user
