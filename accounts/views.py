"""Account pages: login, sign-up, password reset and change, API tokens, invitations
(docs/accounts.md). Thin: forms validate, :mod:`accounts.services` writes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse, reverse_lazy
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST

from accounts import oidc, ratelimit, selectors, services, sessions, two_factor
from accounts.forms import InvitationForm, SignupForm, TokenForm
from accounts.mail import email_configured
from deniable.errors import Conflict, InvalidInput, NotFound
from deniable.users import signed_in_user

HOUR = 3600


class LoginView(auth_views.LoginView):
    """Django's login, with the links a visitor may need: reset, and sign-up when open."""

    redirect_authenticated_user = True

    def form_valid(self, form: Any) -> HttpResponse:
        """With two-factor login on, the password only leads to the code page
        (docs/accounts.md#two-factor): no session is logged in before the code."""
        user = form.get_user()
        if not two_factor.enrolled(user):
            return super().form_valid(form)
        two_factor.start_pending(self.request, user)
        target = reverse("two-factor-verify")
        return redirect(f"{target}?{urlencode({'next': self.get_success_url()})}")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["open_signup"] = settings.DENIABLE_OPEN_SIGNUP
        # Single sign-on's button, only when it is set up (docs/accounts.md#sso).
        context["sso_name"] = settings.DENIABLE_OIDC_PROVIDER_NAME if oidc.enabled() else ""
        return context


def _rate_limited(request: HttpRequest, what: str) -> HttpResponse:
    response = render(
        request,
        "accounts/rate_limited.html",
        {"what": what, "minutes": HOUR // 60},
        status=429,
    )
    response["Retry-After"] = str(HOUR)
    return response


# --- sign-up ------------------------------------------------------------------------------------


def _signup_page(
    request: HttpRequest,
    form: SignupForm | None,
    *,
    invitation: Any = None,
    refused: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "form": form,
        "invitation": invitation,
        "refused": refused,
        "open_signup": settings.DENIABLE_OPEN_SIGNUP,
    }
    return render(request, "accounts/signup.html", context, status=status)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """``/accounts/signup/``: with ``?invite=<token>`` (the emailed link) or, when
    ``DENIABLE_OPEN_SIGNUP`` is on, without. The token is posted back in the form body."""
    if request.user.is_authenticated:
        return redirect("account")
    source = request.POST if request.method == "POST" else request.GET
    token = source.get("invite", "").strip()[:200]
    if request.method == "POST" and not ratelimit.allow(
        "signup", "all", limit=settings.DENIABLE_SIGNUP_RATE_LIMIT, window_seconds=HOUR
    ):
        return _rate_limited(request, "sign-up attempts")
    invitation = None
    if token:
        try:
            invitation = services.signup_invitation_check(token=token)
        except services.InvitationRefused as exc:
            return _signup_page(request, None, refused=exc.detail, status=400)
    elif not settings.DENIABLE_OPEN_SIGNUP:
        return _signup_page(request, None)  # explains that sign-up is by invitation
    if request.method == "GET":
        form = SignupForm(
            initial={"invite": token}, invited_email=invitation.email if invitation else None
        )
        return _signup_page(request, form, invitation=invitation)
    return _signup_post(request, token, invitation)


def _signup_post(request: HttpRequest, token: str, invitation: Any) -> HttpResponse:
    form = SignupForm(request.POST, invited_email=invitation.email if invitation else None)
    if not form.is_valid():
        return _signup_page(request, form, invitation=invitation, status=400)
    try:
        user = services.researcher_signup(
            username=form.cleaned_data["username"],
            email=form.cleaned_data.get("email") or "",
            password=form.cleaned_data["password1"],
            invitation_token=token or None,
        )
    except services.InvitationRefused as exc:  # used meanwhile (two tabs, two people)
        return _signup_page(request, None, refused=exc.detail, status=400)
    except InvalidInput as exc:
        for field, errors in exc.errors.items():
            for error in errors:
                form.add_error(field if field in form.fields else None, error)
        return _signup_page(request, form, invitation=invitation, status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, f"Welcome, {user.username}: your researcher account is ready.")
    return redirect("researcher-home")


# --- password reset and change ------------------------------------------------------------------


def _reset_valid_for() -> str:
    """How long a reset link works, in words: "2 hours", "90 minutes", "1 hour"."""
    seconds = int(settings.PASSWORD_RESET_TIMEOUT)
    if seconds % HOUR == 0:
        hours = seconds // HOUR
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(1, seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset by email, rate limited per address and in total, and honest when this
    server cannot send email (Django would log the failure and still say "sent")."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["email_configured"] = email_configured()
        context["valid_for"] = _reset_valid_for()
        return context

    def form_valid(self, form: Any) -> HttpResponse:
        if not email_configured():
            form.add_error(
                None,
                "This server cannot send email yet, so it cannot send a reset link. Ask your "
                "administrator to reset the password (manage.py changepassword) or to set up "
                "email.",
            )
            return self.render_to_response(self.get_context_data(form=form), status=503)
        address = form.cleaned_data["email"].strip().lower()
        per_email = ratelimit.allow(
            "reset-email",
            address,
            limit=settings.DENIABLE_RESET_RATE_LIMIT_PER_EMAIL,
            window_seconds=HOUR,
        )
        overall = ratelimit.allow(
            "reset", "all", limit=settings.DENIABLE_RESET_RATE_LIMIT, window_seconds=HOUR
        )
        if not (per_email and overall):
            return _rate_limited(request=self.request, what="password-reset requests")
        self.extra_email_context = {"valid_for": _reset_valid_for()}
        return super().form_valid(form)


class PasswordChangeView(auth_views.PasswordChangeView):
    success_url = reverse_lazy("password_change_done")

    def form_valid(self, form: Any) -> HttpResponse:
        """Django ends the other sessions (their password hash no longer matches); their rows
        go too, so the sessions page does not list them (docs/accounts.md#sessions)."""
        response = super().form_valid(form)
        sessions.sessions_sign_out(
            user=signed_in_user(self.request.user), keep_request=self.request
        )
        return response


# --- account and API tokens ---------------------------------------------------------------------


@login_required
@require_http_methods(["GET"])
def account(request: HttpRequest) -> HttpResponse:
    user = signed_in_user(request.user)
    tokens = selectors.api_tokens_for(user=user)
    return render(
        request,
        "accounts/account.html",
        {"account": user, "token_count": tokens.count()},
    )


def _tokens_page(
    request: HttpRequest, form: TokenForm, *, new_key: str = "", status: int = 200
) -> HttpResponse:
    user = signed_in_user(request.user)
    context = {
        "form": form,
        "tokens": selectors.api_tokens_for(user=user),
        "new_key": new_key,
        "max_days": settings.DENIABLE_API_TOKEN_MAX_DAYS,
    }
    return render(request, "accounts/tokens.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """List the user's tokens; POST creates one and shows its key this once."""
    if request.method == "GET":
        return _tokens_page(request, TokenForm())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _tokens_page(request, form, status=400)
    try:
        issued = services.api_token_create(
            user=signed_in_user(request.user),
            name=form.cleaned_data["name"] or "API",
            expires_in_days=form.cleaned_data["expires_in_days"],
            # The page is behind the two-factor gate: the token carries what this session passed.
            second_factor=two_factor.session_factor(request),
        )
    except Conflict as exc:
        form.add_error(None, exc.detail)
        return _tokens_page(request, form, status=409)
    return _tokens_page(request, TokenForm(), new_key=issued.key)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        services.api_token_revoke(user=signed_in_user(request.user), token_id=token_id)
    except NotFound as exc:
        # Someone else's token is a 404 like a missing one (existence is never leaked).
        raise Http404("No such token.") from exc
    messages.success(request, "Token revoked: it no longer works.")
    return redirect("account-tokens")


# --- sign-up invitations (administrators) -------------------------------------------------------


def invitation_link(request: HttpRequest | None, token: str, base_url: str = "") -> str:
    path = reverse("signup") + "?invite=" + token
    if request is not None:
        return request.build_absolute_uri(path)
    return base_url.rstrip("/") + path


def send_invitation(*, email: str, link: str, days: int) -> None:
    body = render_to_string("accounts/invitation_email.txt", {"link": link, "days": days})
    send_mail("Your Deniable researcher account", body, None, [email])


def _staff(request: HttpRequest) -> None:
    user = signed_in_user(request.user)
    if not (user.is_staff or user.is_superuser):
        raise PermissionDenied


def _invitations_page(
    request: HttpRequest,
    form: InvitationForm,
    *,
    link: str = "",
    sent_to: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "form": form,
        "link": link,
        "sent_to": sent_to,
        "invitations": selectors.signup_invitations_recent(),
        "email_configured": email_configured(),
    }
    return render(request, "accounts/invitations.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def invitations(request: HttpRequest) -> HttpResponse:
    """Staff only: issue a one-time sign-up link, shown once and optionally emailed."""
    _staff(request)
    if request.method == "GET":
        return _invitations_page(request, InvitationForm())
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _invitations_page(request, form, status=400)
    days = form.cleaned_data["days"]
    issued = services.signup_invitation_create(
        email=form.cleaned_data["email"], created_by=signed_in_user(request.user), days=days
    )
    link = invitation_link(request, issued.token)
    sent_to = ""
    if form.cleaned_data["send_email"] and email_configured():
        try:
            send_invitation(email=issued.invitation.email, link=link, days=days)
            sent_to = issued.invitation.email
        except Exception:  # noqa: BLE001 — the link is on the page; say the email failed
            messages.error(request, "The email could not be sent: copy the link below instead.")
    return _invitations_page(request, InvitationForm(), link=link, sent_to=sent_to)


@login_required
@require_POST
def invitation_revoke(request: HttpRequest, invitation_id: int) -> HttpResponse:
    _staff(request)
    try:
        services.signup_invitation_revoke(invitation_id=invitation_id)
    except NotFound as exc:
        raise Http404("No such unused invitation.") from exc
    messages.success(request, "Invitation revoked: its link no longer works.")
    return redirect("account-invitations")
