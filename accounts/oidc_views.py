"""The single sign-on pages (docs/accounts.md#sso): start the sign-in at the provider, and its
callback. mozilla-django-oidc's views, with single sign-on off by default (404), the provider's
endpoints from discovery, and every refusal shown on the login page instead of a bare error."""

from __future__ import annotations

import logging
from typing import Any

import requests
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.cache import never_cache
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from accounts import oidc
from accounts.sessions import VIA_ATTR

logger = logging.getLogger(__name__)


def _refused(request: HttpRequest, why: str) -> HttpResponse:
    name = settings.DENIABLE_OIDC_PROVIDER_NAME
    messages.error(request, f"Sign-in with {name} was refused: {why}")
    return redirect("login")


class StartView(OIDCAuthenticationRequestView):
    """``/accounts/oidc/authenticate/``: to the provider, with state, nonce and a PKCE
    challenge kept in this session (the library's ``oidc_states``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The parent reads the provider's endpoint from settings here; ours comes from discovery.
        super(OIDCAuthenticationRequestView, self).__init__(*args, **kwargs)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID

    def get(self, request: HttpRequest) -> HttpResponse:
        if not oidc.enabled():
            raise Http404("Single sign-on is not set up on this server.")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = str(oidc.metadata()["authorization_endpoint"])
        except (oidc.ProviderUnavailable, KeyError):
            logger.warning("The single sign-on provider's discovery document is unavailable.")
            return _refused(request, "the provider cannot be reached. Try again later.")
        return super().get(request)


class CallbackView(OIDCAuthenticationCallbackView):
    """``/accounts/oidc/callback/``: the state must be one this session started (once: the
    library deletes it before anything else), then the backend checks the tokens and claims."""

    def get(self, request: HttpRequest) -> HttpResponse:
        if not oidc.enabled():
            raise Http404("Single sign-on is not set up on this server.")
        states = request.session.get("oidc_states")
        if "state" in request.GET and request.GET["state"] not in (states or {}):
            # The library says "failure" without a session's states and raises with them; both
            # are a callback this session did not start, or one already used.
            return _refused(request, _say("OIDC callback state"))
        try:
            return super().get(request)
        except SuspiciousOperation as exc:
            # An unknown or replayed state, or a token that failed a check.
            why = getattr(request, oidc.REFUSAL_ATTR, "") or str(exc)
            logger.warning("Single sign-on refused: %s", why)
            return _refused(request, _say(why))
        except (requests.RequestException, oidc.ProviderUnavailable, KeyError):
            logger.warning("Single sign-on failed: the provider's token endpoint did not answer.")
            return _refused(request, "the provider did not answer. Try again.")

    def login_failure(self) -> HttpResponse:
        why = getattr(self.request, oidc.REFUSAL_ATTR, "") or "the provider did not sign you in."
        return _refused(self.request, _say(why))

    def login_success(self) -> HttpResponse:
        setattr(self.request, VIA_ATTR, "sso")  # before login(): the session row says how
        response = super().login_success()
        amr = getattr(self.user, "deniable_amr", [])
        if settings.DENIABLE_OIDC_TRUST_MFA and "mfa" in amr:
            self.request.session[oidc.SSO_MFA_KEY] = True
        return response


def _say(why: str) -> str:
    if why.startswith("OIDC callback state"):
        return "this sign-in link was already used or was not started here. Start again."
    return why


start = never_cache(StartView.as_view())
callback = never_cache(CallbackView.as_view())
