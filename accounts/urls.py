"""Account pages under /accounts/ (docs/accounts.md)."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import oidc_views, session_views, two_factor_views, views

urlpatterns = [
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),  # POST only
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/oidc/authenticate/", oidc_views.start, name="oidc-authenticate"),
    path("accounts/oidc/callback/", oidc_views.callback, name="oidc-callback"),
    path("accounts/", views.account, name="account"),
    path("accounts/tokens/", views.tokens, name="account-tokens"),
    path("accounts/sessions/", session_views.sessions_page, name="account-sessions"),
    path(
        "accounts/sessions/<int:session_id>/revoke/",
        session_views.session_revoke,
        name="account-session-revoke",
    ),
    path("accounts/two-factor/", two_factor_views.setup, name="two-factor"),
    path("accounts/two-factor/verify/", two_factor_views.verify, name="two-factor-verify"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke, name="account-token-revoke"),
    path("accounts/invitations/", views.invitations, name="account-invitations"),
    path(
        "accounts/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="account-invitation-revoke",
    ),
    path(
        "accounts/password/change/",
        views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/password/reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
