"""Admin: API tokens and sign-up invitations can be looked at and deleted (= revoked), never
created or edited here — a key exists only in the response that created it (docs/accounts.md)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from accounts.models import ApiToken, SignupInvitation


class RevokeOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(RevokeOnlyAdmin):
    list_display = ("name", "user", "created", "expires", "last_used")
    search_fields = ("name", "user__username")
    exclude = ("digest",)


@admin.register(SignupInvitation)
class SignupInvitationAdmin(RevokeOnlyAdmin):
    list_display = ("email", "created", "expires", "used", "used_by", "created_by")
    search_fields = ("email",)
    exclude = ("digest",)
