"""Admin: draft surveys and their questions are editable; opened surveys and collected data are
read-only.

Once a survey has opened every field of its change form is read-only and its questions can be
neither added, changed nor deleted (DESIGN §8.5; the model guard in
:mod:`surveys.definitions.freeze` refuses
the same writes on every other path). Its owner is fixed after creation: there is no ownership
transfer. The one change offered for an opened survey is the "close" action, through the same
service as the API.

Submissions and tallies are evidence of what respondents sent: the admin can look but not
edit (an edited answer would silently bias estimates, and tallies must match the submissions).
Invitations show only digests. Submissions are not registered at all: there is nothing useful to
see row by row, and browsing them invites re-identification attempts.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet

from deniable.errors import Conflict
from surveys.models import Invitation, Question, Survey, Tally
from surveys.services import survey_close


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
    inlines = [QuestionInline]
    actions = ["close_surveys"]

    def get_readonly_fields(self, request: Any, obj: Survey | None = None) -> Any:
        # population_shares: set on the results page only, through its serializer
        # (surveys.inputs.poststratify), which the admin's JSON box would bypass.
        if obj is None:  # a new survey is a draft; the slug is random
            return ("slug", "status", "created_at", "population_shares")
        if obj.status == Survey.Status.DRAFT:  # opened through the API or the pages
            return ("slug", "owner", "status", "created_at", "population_shares")
        return tuple(f.name for f in Survey._meta.concrete_fields if f.name != "id")

    @admin.action(description="Close the selected open surveys", permissions=["change"])
    def close_surveys(self, request: Any, queryset: QuerySet[Survey]) -> None:
        closed = 0
        for survey in queryset.filter(status=Survey.Status.OPEN):
            try:
                survey_close(survey=survey)
                closed += 1
            except Conflict:  # closed meanwhile
                pass
        self.message_user(request, f"Closed {closed} survey(s).", messages.SUCCESS)


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
    """Digests, and a use only once its batch is published: the raw ``used`` flag is set by the
    submission itself, so a list of it (or a filter on it) named which invitee had just answered,
    one submission at a time, to any staff account (the attack the invitation check once allowed,
    issue 21 item 3)."""

    list_display = ("survey", "digest", "state", "created_on")
    list_filter = ("survey",)
    fields = ("survey", "digest", "state", "created_on")
    readonly_fields = fields

    @admin.display(description="state")
    def state(self, obj: Invitation) -> str:
        if obj.used and obj.sealed and not obj.revoked:
            return "used (published with its batch)"
        if obj.revoked:
            return "withdrawn"
        return "not used, or used in a batch not yet published"
