"""The sessions page (docs/accounts.md#sessions): where one is signed in, and signing out of
one, of all the others, or everywhere (optionally revoking the API tokens too). The services are
in accounts.sessions, shared with the API (accounts.api.session_views)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors, sessions
from deniable.errors import NotFound
from deniable.users import signed_in_user


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def sessions_page(request: HttpRequest) -> HttpResponse:
    user = signed_in_user(request.user)
    if request.method == "POST":
        revoke_tokens = request.POST.get("revoke_tokens") == "on"
        ended = sessions.sessions_end(
            user=user,
            everywhere=request.POST.get("action") == "everywhere",
            revoke_tokens=revoke_tokens,
            request=request,
        )
        tokens = " API tokens revoked." if revoke_tokens else ""
        if ended.current:  # everywhere: this session too, now logged out
            messages.success(request, f"Signed out everywhere.{tokens}")
            return redirect("login")
        messages.success(request, f"Signed out of {ended.sessions} other session(s).{tokens}")
        return redirect("account-sessions")
    context = {
        "sessions": sessions.sessions_for(user=user),
        "current_id": sessions.current_session_id(request),
        "token_count": selectors.api_tokens_for(user=user).count(),
    }
    return render(request, "accounts/sessions.html", context)


@login_required
@require_POST
def session_revoke(request: HttpRequest, session_id: int) -> HttpResponse:
    try:
        here = sessions.session_end(
            user=signed_in_user(request.user), session_id=session_id, request=request
        )
    except NotFound as exc:
        raise Http404("No such session.") from exc  # someone else's is a 404 like a missing one
    if here:  # this session: logged out
        return redirect("login")
    messages.success(request, "That session is signed out.")
    return redirect("account-sessions")
