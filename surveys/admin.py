"""Admin: surveys and questions are editable; collected data is read-only.

Submissions and tallies are evidence of what respondents sent: the admin can look but not
edit (an edited answer would silently bias estimates, and tallies must match the submissions).
Invitations show only digests. Submissions are not registered at all: there is nothing useful to
see row by row, and browsing them invites re-identification attempts.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from surveys.models import Invitation, Question, Survey, Tally


class QuestionInline(admin.TabularInline):
    model = Question
    extra = 0
    fields = ("position", "key", "kind", "text", "design", "options", "min_value", "max_value")

    def has_change_permission(self, request: Any, obj: Survey | None = None) -> bool:
        # Designs of an open or closed survey are fixed: reports were randomized under them.
        return obj is None or obj.status == Survey.Status.DRAFT

    has_add_permission = has_change_permission
    has_delete_permission = has_change_permission


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "owner", "status", "access", "created_at")
    list_filter = ("status", "access")
    search_fields = ("title", "slug", "owner__username")
    readonly_fields = ("slug", "created_at")
    inlines = [QuestionInline]


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Tally)
class TallyAdmin(ReadOnlyAdmin):
    list_display = ("survey", "group_key", "group_value", "shard", "sums")
    list_filter = ("survey",)


@admin.register(Invitation)
class InvitationAdmin(ReadOnlyAdmin):
    list_display = ("survey", "digest", "used", "created_on")
    list_filter = ("used", "survey")
