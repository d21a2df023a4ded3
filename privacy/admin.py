"""Admin: releases and the ledger are read-only records (results are write-once).

Nothing here can change or delete a release or a ledger entry: deleting a done release would
destroy a published result, and deleting a ledger entry would silently refund its charge (issue
11, item 10). Without delete permission on these models the admin also refuses to delete a survey
that has releases (Django lists them as protected objects the user may not delete).
"""

from __future__ import annotations

from django.contrib import admin

from privacy.models import LedgerEntry, Release


class LedgerInline(admin.StackedInline):
    model = LedgerEntry
    can_delete = False
    extra = 0
    max_num = 0
    readonly_fields = ("event", "charged_at", "refunded", "refunded_at")

    # Read-only in its own right, not only through the release's form: a ledger row that could be
    # edited or added here would refund or fake a charge.
    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("id", "survey", "mechanism", "status", "epsilon", "rho", "created_at")
    list_filter = ("status", "mechanism")
    search_fields = ("id", "survey__slug", "request_id")
    inlines = [LedgerInline]

    def has_change_permission(self, request, obj=None) -> bool:  # results are write-once
        return False

    def has_add_permission(self, request) -> bool:  # releases are requested through the API
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # a published result stays
        return False


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "survey", "release", "refunded", "charged_at")
    list_filter = ("refunded",)

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # deleting = a silent refund
        return False
