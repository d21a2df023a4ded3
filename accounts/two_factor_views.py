"""Two-factor pages (docs/accounts.md#two-factor): set up or manage it, and enter a code after
the password. The gate that sends a half-logged-in session here is
:class:`accounts.two_factor_gate.TwoFactorGateMiddleware`."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import two_factor as tf
from deniable.security import lockout_response
from deniable.users import signed_in, signed_in_user


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code",
        max_length=32,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "spellcheck": "false"}
        ),
    )


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    return target if target and allowed else "researcher-home"


def _code_user(request: HttpRequest) -> User | None:
    """Whose code the page asks for: the signed-in user (a session made without the code, e.g.
    by the admin's login page) or the one whose password the login page just accepted."""
    user = signed_in(request.user)
    if user is not None:
        return user
    pending = tf.pending_user(request)
    return pending[0] if pending is not None else None


@never_cache
@require_http_methods(["GET", "POST"])
def verify(request: HttpRequest) -> HttpResponse:
    """After the password: a code from the app, or a recovery code."""
    user = _code_user(request)
    if user is None:
        return redirect("login")
    if tf.session_verified(request):
        return redirect(_next(request))
    if not tf.enrolled(user):
        return redirect("two-factor")
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if tf.locked_out(request, user):
            return _locked(request)
        device = tf.check_code(request, user, form.cleaned_data["code"])
        if device is not None:
            tf.complete_login(request, user, device)
            return redirect(_next(request))
        if tf.locked_out(request, user):
            return _locked(request)
        form.add_error("code", "That code is not valid (or a recovery code already used).")
    status = 400 if form.errors else 200
    context = {"form": form, "next": _next(request)}
    return render(request, "accounts/two_factor_verify.html", context, status=status)


def _locked(request: HttpRequest) -> HttpResponse:
    logout(request)  # the pending login too: the password must be given again after the lock
    return lockout_response(request)


def _setup_context(request: HttpRequest, form: CodeForm) -> dict[str, object]:
    user = signed_in_user(request.user)
    context: dict[str, object] = {"form": form, **tf.describe(user)}
    if not tf.enrolled(user):
        device = tf.pending_totp(user)
        context.update(qr_svg=tf.qr_svg(device), secret=tf.secret_b32(device))
    return context


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def setup(request: HttpRequest) -> HttpResponse:
    """Turn it on (QR code, then a typed code), new recovery codes, or turn it off."""
    user = signed_in_user(request.user)
    form = CodeForm(request.POST or None)
    if tf.enrolled(user) and not tf.session_verified(request):
        return redirect("two-factor-verify")
    action = request.POST.get("action", "enrol")
    if request.method == "POST" and action == "recovery" and tf.enrolled(user):
        codes = tf.new_recovery_codes(user)
        return render(
            request,
            "accounts/two_factor.html",
            {**_setup_context(request, CodeForm()), "codes": codes},
        )
    if request.method == "POST" and action == "disable" and tf.enrolled(user):
        if tf.required_for(user):
            messages.error(request, "Two-factor login is required for your account.")
        else:
            tf.disable(user)
            messages.success(request, "Two-factor login is off.")
        return redirect("two-factor")
    if request.method == "POST" and form.is_valid() and not tf.enrolled(user):
        if tf.locked_out(request, user):
            return _locked(request)
        confirmed = tf.confirm_totp(request, user, form.cleaned_data["code"])
        if confirmed is not None:
            return render(
                request,
                "accounts/two_factor.html",
                {**_setup_context(request, CodeForm()), "codes": confirmed},
            )
        form.add_error(
            "code", "That code does not match: check the time on your phone and try again."
        )
    status = 400 if form.errors else 200
    return render(request, "accounts/two_factor.html", _setup_context(request, form), status=status)
