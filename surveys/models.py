"""Survey data model.

What is stored is deliberately thin (docs/privacy-model.md#unlinkability):

* a ``Submission`` holds the *randomized* answers the respondent's device reported — never the
  truth — with a client-generated random UUID key, the randomizer used, and the *date* only: no
  IP address, no user agent, no time of day;
* an ``Invitation`` is an HMAC digest, a used flag and a revoked flag, in a table with no link to
  submissions;
* ``Tally`` rows are counter vectors added to when a batch of k submissions is published
  (``surveys.services.batches``), so estimates never scan submissions. They are sharded so
  concurrent batch publications rarely wait on the same row lock.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import JSONField, Value
from django.db.models.signals import pre_delete
from django.utils import timezone

from surveys.definitions.freeze import (
    CHECKED_FIELDS,
    SurveyFrozen,
    budget_delta_error,
    budget_epsilon_error,
    question_freeze_check,
    survey_freeze_errors,
)
from surveys.fields import SumsVectorField

if TYPE_CHECKING:
    from surveys.collection.tally_layout import TallyLayout

SLUG_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no look-alikes (l/1, o/0)
TALLY_SHARDS = 64  # see Tally: fewer concurrent submissions meet on one row lock


def new_survey_slug() -> str:
    """A random, unguessable, URL-friendly slug (10 chars ≈ 50 bits)."""
    return "".join(secrets.choice(SLUG_ALPHABET) for _ in range(10))


class Survey(models.Model):
    class Access(models.TextChoices):
        OPEN = "open", "Anyone with the link"
        INVITE = "invite", "One-time invitation tokens"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"
        ARCHIVED = "archived", "Archived"

    # Random by default; the researcher may choose one while the survey is a draft (issue 16).
    slug = models.CharField(max_length=32, unique=True, default=new_survey_slug)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="surveys"
    )
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    access = models.CharField(max_length=10, choices=Access.choices, default=Access.OPEN)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    closes_at = models.DateTimeField(null=True, blank=True)
    response_cap = models.PositiveIntegerField(null=True, blank=True)
    planned_n = models.PositiveIntegerField(default=1000)
    budget_epsilon = models.FloatField(default=1.0)
    budget_delta = models.FloatField(default=1e-6)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # The respondent-facing languages, the first is the default (docs/translations.md), and the
    # content in every other one: {lang: {"title","description","questions":{key:{"text",
    # "options":{option: label}}}}}. Stored option values never change with the language.
    # Database defaults too, so rows written by code (or historical migration models) that
    # predate these columns still insert.
    languages = models.JSONField(default=list, db_default=Value([], JSONField()), blank=True)
    translations = models.JSONField(default=dict, db_default=Value({}, JSONField()), blank=True)
    # The researcher's population shares for post-stratified estimates (docs/analysis.md
    # #post-stratification): {"key": <category question>, "shares": {option: share}}, or {} for
    # none. Validated by surveys.inputs.poststratify on the way in and again when read.
    population_shares = models.JSONField(
        default=dict, db_default=Value({}, JSONField()), blank=True
    )
    # Not a column: the instance's memo of its slot layout, set on first use
    # (surveys.services.submission_rows.survey_tally_layout).
    _tally_layout: TallyLayout

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.title} ({self.slug})"

    def _freeze_errors(self, update_fields: Any = None) -> dict[str, str]:
        """What this save would change that the freeze refuses (surveys.definitions.freeze)."""
        if self._state.adding or self.pk is None:
            return {}
        stored = type(self).objects.filter(pk=self.pk).values(*CHECKED_FIELDS).first()
        if stored is None:
            return {}
        new = {name: getattr(self, name) for name in CHECKED_FIELDS}
        fields = (
            None
            if update_fields is None
            else {"owner_id" if f == "owner" else f for f in update_fields}
        )
        return survey_freeze_errors(stored, new, fields)

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        errors = self._freeze_errors()
        # The API's budget rules, for the admin's form (a draft's budget is editable there).
        for name, check in (
            ("budget_epsilon", budget_epsilon_error),
            ("budget_delta", budget_delta_error),
        ):
            error = check(getattr(self, name))
            if error and name not in errors:
                errors[name] = error
        if errors:
            raise ValidationError(errors)

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Every save path (API, pages, admin, commands) is refused alike once opened."""
        errors = self._freeze_errors(kwargs.get("update_fields"))
        if errors:
            raise SurveyFrozen(errors)
        super().save(*args, **kwargs)

    def is_accepting(self, now: Any = None) -> bool:
        """Open, and not past its close date (the response cap is checked with the tallies)."""
        now = now or timezone.now()
        if self.status != self.Status.OPEN:
            return False
        return self.closes_at is None or now < self.closes_at


class _RandomizedKinds:
    """``Question.RANDOMIZED_KINDS``: the stored kinds that carry a design, read from the kind
    registry when asked (the registry is not imported while the models load)."""

    def __get__(self, instance: object, owner: type | None = None) -> tuple[str, ...]:
        from surveys.kinds._definitions import randomized_stored_kinds

        return randomized_stored_kinds()


class Question(models.Model):
    # The stored values of ``kind`` (the API's enum, with their labels); a test checks them
    # against the kind registry's ``stored_kind_choices()``.
    class Kind(models.TextChoices):
        YES_NO = "yes_no", "Sensitive yes/no (randomized response)"
        CHOICE = "choice", "Sensitive choice (k-ary randomized response)"
        CATEGORY = "category", "Non-sensitive category (asked directly)"
        NUMBER = "number", "Non-sensitive number (asked directly)"
        MULTI = "multi", "Sensitive multi-select (one randomized yes/no per option)"

    RANDOMIZED_KINDS = _RandomizedKinds()

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    key = models.SlugField(max_length=64)
    position = models.PositiveIntegerField(default=0)
    text = models.TextField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The randomization design spec (dpcore.local.design_from_spec) for yes_no and choice.
    design = models.JSONField(default=dict, blank=True)
    options = models.JSONField(default=list, blank=True)
    min_value = models.FloatField(null=True, blank=True)
    max_value = models.FloatField(null=True, blank=True)
    # An optional question may be left unanswered (its estimates count n per question).
    required = models.BooleanField(default=True, db_default=True)
    # Skip logic on direct questions only: {"key": <category key>, "in": [options]} or null.
    show_if = models.JSONField(null=True, blank=True, default=None)
    # A choice whose options are ordered (Likert): estimates add a debiased mean score.
    ordered = models.BooleanField(default=False, db_default=False)
    # A number question that takes whole numbers only (a fraction is refused, never rounded).
    integer = models.BooleanField(default=False, db_default=False)

    class Meta:
        ordering = ["survey", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "key"], name="question_key_unique_in_survey")
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug}:{self.key}"

    def _survey_status(self) -> str | None:
        return Survey.objects.filter(pk=self.survey_id).values_list("status", flat=True).first()

    def save(self, *args: Any, **kwargs: Any) -> None:
        question_freeze_check(self._survey_status())
        if not self._state.adding and self.pk is not None:  # moved from an opened survey?
            moved_from = Question.objects.filter(pk=self.pk).values_list("survey_id", flat=True)
            for survey_id in moved_from:
                question_freeze_check(
                    Survey.objects.filter(pk=survey_id).values_list("status", flat=True).first()
                )
        super().save(*args, **kwargs)

    @property
    def is_randomized(self) -> bool:
        from surveys.kinds import kind_of

        return kind_of(self).randomized

    @property
    def bounds(self) -> tuple[float, float] | None:
        """(min, max) of a number question; None when either is unset. The API and the builder
        require both, but the columns are nullable and the admin can leave them blank."""
        if self.min_value is None or self.max_value is None:
            return None
        return self.min_value, self.max_value


class Submission(models.Model):
    class Randomizer(models.TextChoices):
        BROWSER = "browser", "Coins flipped by the browser (Web Crypto)"
        PHYSICAL = "physical", "Coins flipped by the respondent (no JavaScript)"

    # The client's random uuid4: the idempotency key, and never sequential.
    id = models.UUIDField(primary_key=True, editable=False)
    # Indexed by (survey, sealed) below instead of the foreign key's own index on survey alone.
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="submissions", db_index=False
    )
    randomizer = models.CharField(max_length=10, choices=Randomizer.choices)
    # Coarse on purpose: the date only (no time of day, which could link a report to a person).
    submitted_on = models.DateField()
    # SHA-256 of the canonical request body: same id + same body is a duplicate, other body a 409.
    fingerprint = models.CharField(max_length=64)
    # The *reported* answers, {question key: value} (bool for yes_no, the option for
    # choice/category, a float for number): one row per respondent, never the truth.
    answers = models.JSONField(default=dict)
    # Published in a batch (surveys.services.batches): counted in the tallies, so in estimates
    # and exports, and rewritten with its batch in key order (one transaction, so its batch
    # shares one transaction id and row order says nothing of arrival). Unsealed rows are the
    # < DENIABLE_ESTIMATE_BATCH newest: counted in releases and response caps only.
    sealed = models.BooleanField(default=False, db_default=False)
    # Indexes: the key; (survey, sealed) for the survey's rows (export, recount) in place of the
    # foreign key's index on survey alone; and the small partial index of the unsealed tail
    # (counted after every submission). Every index that starts with survey finds the tail by its
    # index condition: which one PostgreSQL picks depends on its statistics, and through an index
    # on survey alone, with `NOT sealed` a filter, a survey the statistics had not yet seen had
    # its tail counted over all its published rows (migration 0014). No reader filters by date,
    # so a (survey, submitted_on) index would only slow down every insert. On SQLite the table is
    # WITHOUT ROWID (migration 0004): rows live in key order, with no arrival-ordered rowid.

    class Meta:
        indexes = [
            models.Index(fields=["survey", "sealed"], name="submission_survey_sealed"),
            models.Index(
                fields=["survey"],
                condition=models.Q(sealed=False),
                name="submission_unsealed",
            ),
        ]


# A survey's unsealed tail for the ORM, written twice: as equalities (``"sealed" = %s`` with
# False bound) and as Django writes ``sealed=False`` (``NOT "sealed"``, the partial indexes' own
# predicate). SQLite finds a tail through the (survey, sealed[, used]) index only by an equality
# on its columns — with ``NOT "sealed"`` alone the embedded database (never analysed) read every
# row of the survey on every submission — and uses a partial index only when the WHERE holds
# its terms as written (tests/surveys/test_query_plans_any_index.py plans with each index).
# PostgreSQL reads each pair as one term. ``surveys.services.batches`` writes the same in SQL.
UNSEALED = models.Q(sealed=Value(False)) & models.Q(sealed=False)
USED_UNSEALED = models.Q(used=Value(True), sealed=Value(False)) & models.Q(used=True, sealed=False)


class Tally(models.Model):
    """A sharded counter vector: the sums of ``surveys.collection.tally_layout.submission_vector``
    over the published submissions of one slice that landed in one shard, added to when a batch
    is published (``surveys.services.batches``, one statement), never by a lone submission.

    ``group_key``/``group_value`` "" is the slice of all respondents; otherwise a category
    question and one of its options (for ``group_by``). The estimate for a slice is the
    element-wise SUM over its shards (at most ``TALLY_SHARDS`` rows).

    Every submission updates the all-respondents slice, so each shard's row lock is held by one
    submission at a time until its commit (WAL flush included). With 64 random shards two of c
    concurrent submissions meet on a row with probability ≈ c²/128, against c²/32 with 16:
    measured with pgbench at 4 clients, 5.1–5.4k against 4.2–4.8k submissions/s.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="tallies")
    group_key = models.CharField(max_length=64, blank=True, default="")
    group_value = models.CharField(max_length=200, blank=True, default="")
    shard = models.PositiveSmallIntegerField(default=0)
    sums = SumsVectorField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "group_key", "group_value", "shard"], name="tally_slice_unique"
            )
        ]


class Invitation(models.Model):
    """A one-time invitation: only the HMAC digest of the token is kept, and no link to answers.

    ``used`` means the token can no longer be redeemed; ``revoked`` tells why: withdrawn by the
    researcher before anyone used it (revoking sets both), rather than spent by a submission.
    Setting ``used`` on revocation keeps every redemption path that asks for ``used=False``
    correct without knowing about revocation (see ``surveys.services.invitations``).

    ``sealed``: the token's state may be shown (issue 21, items 3–4). A use is sealed with its
    batch, never on its own (surveys.services.batches); a revoke of an unused token at once.
    Until then a used token reads as unused (check, counts), or as revoked once the researcher
    revoked the rest. The used marks still to re-write with the next batch are the few ``used AND
    NOT sealed`` rows, found through their partial index, so publishing costs O(k) however many
    invitations were used before (issue 29).
    """

    # Indexed by (survey, sealed, used) below, as submissions are (their Meta says why).
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="invitations", db_index=False
    )
    digest = models.CharField(max_length=64, unique=True)
    used = models.BooleanField(default=False)
    revoked = models.BooleanField(default=False)
    created_on = models.DateField(default=timezone.localdate)
    sealed = models.BooleanField(default=False, db_default=False)

    class Meta:
        indexes = [
            models.Index(fields=["survey", "sealed", "used"], name="invitation_survey_sealed_used"),
            models.Index(
                fields=["survey"],
                condition=models.Q(used=True, sealed=False),
                name="invitation_used_unsealed",
            ),
        ]


class Collaborator(models.Model):
    """A researcher the owner shared a survey with: a viewer reads it, an editor also changes it
    (questions while draft, open/close, invitations). Only the owner spends the privacy budget
    or deletes the survey (docs/teams.md)."""

    class Role(models.TextChoices):
        VIEWER = "viewer", "Viewer"
        EDITOR = "editor", "Editor"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="collaborators")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shared_surveys"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    added_on = models.DateField(default=timezone.localdate)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "user"], name="collaborator_unique")
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug}:{self.user_id}:{self.role}"


def _question_pre_delete(
    sender: Any, instance: Question, origin: Any = None, **kwargs: Any
) -> None:
    """Deleting a question of an opened survey is refused (surveys.definitions.freeze), by instance
    or by queryset; deleting the whole survey (the cascade's origin is the survey) is not."""
    if getattr(origin, "model", type(origin)) is Survey:
        return
    question_freeze_check(instance._survey_status())


pre_delete.connect(_question_pre_delete, sender=Question, dispatch_uid="surveys_question_frozen")


# Webhooks and the shuffled file live in their own modules (surveys/webhooks/,
# surveys/shuffled_store.py); imported here so Django registers them with the app.
from surveys.shuffled_store import ShuffledExport as ShuffledExport  # noqa: E402
from surveys.shuffled_store import (  # noqa: E402
    ShuffledExportImmutable as ShuffledExportImmutable,
)
from surveys.webhooks.models import Webhook as Webhook  # noqa: E402
from surveys.webhooks.models import WebhookDelivery as WebhookDelivery  # noqa: E402
