"""Admin: API tokens, sign-up invitations and two-factor devices can be looked at and deleted
(= revoked), never created or edited here — a key exists only in the response that created it,
and a two-factor key or recovery code is never shown (docs/accounts.md). Deleting a user's
devices is how an administrator helps someone who lost their phone and recovery codes."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import ApiToken, SignupInvitation


class RevokeOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(RevokeOnlyAdmin):
    list_display = ("name", "user", "created", "expires", "last_used", "second_factor")
    search_fields = ("name", "user__username")
    exclude = ("digest",)


@admin.register(SignupInvitation)
class SignupInvitationAdmin(RevokeOnlyAdmin):
    list_display = ("email", "created", "expires", "used", "used_by", "created_by")
    search_fields = ("email",)
    exclude = ("digest",)


# django-otp's own admins show the TOTP key (and its QR code) and the recovery codes to staff.
for device_model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(device_model):
        admin.site.unregister(device_model)


@admin.register(TOTPDevice, StaticDevice)
class DeviceAdmin(RevokeOnlyAdmin):
    list_display = ("user", "name", "confirmed")
    search_fields = ("user__username",)
    fields = ("user", "name", "confirmed")
