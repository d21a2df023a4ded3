"""Central-DP releases and the per-survey privacy-budget ledger (docs/privacy-model.md#budget,
docs/architecture.md#storage).

* :class:`Release` — one requested publication: mechanism parameters, the noise actually used,
  its lifecycle ``pending → running → done | failed`` and, once ``done``, write-once results.
* :class:`LedgerEntry` — the accounting event charged for a release, written in the same
  transaction that creates the release (charge *before* running). ``refunded`` is set only if the
  release failed before any result was stored.

The budget itself is ``Survey.budget_epsilon`` / ``Survey.budget_delta``.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from dpcore.central.mechanisms import Mechanism as MechanismSpec
from dpcore.central.mechanisms import mechanism_of


class ReleaseResultsImmutable(Exception):
    """Raised when code tries to change the results of a release that is already ``done``."""


class Release(models.Model):
    class Mechanism(models.TextChoices):
        LAPLACE = "laplace", "Discrete Laplace (ε-DP)"
        GAUSSIAN = "gaussian", "Discrete Gaussian (ρ-zCDP)"
        EXPONENTIAL = "exponential", "Exponential mechanism (ε-DP, ε-bounded-range)"

    class Statistic(models.TextChoices):
        MEDIAN = "median", "Median"
        QUANTILE = "quantile", "Quantile"
        MODE = "mode", "Most common option"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    FINAL_STATUSES = (Status.DONE, Status.FAILED)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    survey = models.ForeignKey("surveys.Survey", on_delete=models.CASCADE, related_name="releases")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="releases",
    )
    request_id = models.CharField(max_length=100, null=True, blank=True)
    mechanism = models.CharField(max_length=16, choices=Mechanism.choices)
    # The exponential mechanism's statistic (issue 30; "" for laplace/gaussian) and its q
    # (quantile only; median is q = ½ and stores null).
    statistic = models.CharField(max_length=10, choices=Statistic.choices, blank=True, default="")
    quantile = models.FloatField(null=True, blank=True)
    # As requested: ε (laplace, or gaussian with δ), δ (gaussian with ε), ρ (gaussian; always
    # filled for gaussian, derived from σ when (ε, δ) was given).
    epsilon = models.FloatField(null=True, blank=True)
    delta = models.FloatField(null=True, blank=True)
    # What charging this release added to the survey's spent ε (the accountant's composed figure
    # after it minus before it, at the survey's δ): the one figure the history shows, so the
    # releases' figures add up to the budget's (issue 22.12). Null for releases charged before
    # migration 0005.
    charged_epsilon = models.FloatField(null=True, blank=True)
    rho = models.FloatField(null=True, blank=True)
    # Discrete Laplace scale t, or discrete Gaussian σ — per released cell.
    noise_scale = models.FloatField()
    l1_sensitivity = models.FloatField()
    l2_sensitivity = models.FloatField()
    questions = models.JSONField(default=list)
    group_by = models.CharField(max_length=64, blank=True, default="")
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    results = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "request_id"], name="release_request_id_unique_in_survey"
            ),
            models.CheckConstraint(
                condition=~models.Q(status="done") | models.Q(results__isnull=False),
                name="release_done_has_results",
            ),
        ]

    def __str__(self) -> str:
        return f"release {self.id} ({self.mechanism}, {self.status})"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL_STATUSES

    @property
    def mechanism_spec(self) -> MechanismSpec:
        """The typed mechanism, read from the stored columns (the one reader): laplace with ε,
        gaussian with ρ (δ null), or with (ε, δ) and the σ calibrated at request time
        (``noise_scale``), so the run never calibrates again. Not for ``exponential`` (it adds
        no noise: :mod:`privacy.services.selection`)."""
        return mechanism_of(
            self.mechanism,
            epsilon=self.epsilon,
            delta=self.delta,
            rho=self.rho,
            sigma=self.noise_scale,
        )

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Refuse any save that would change the results of a ``done`` release (write-once)."""
        if not self._state.adding and self.pk is not None:
            stored = type(self).objects.filter(pk=self.pk).values("status", "results").first()
            if stored is not None and stored["status"] == self.Status.DONE:
                if self.status != self.Status.DONE or self.results != stored["results"]:
                    raise ReleaseResultsImmutable(f"release {self.pk} is done; results are final")
        super().save(*args, **kwargs)


class LedgerEntry(models.Model):
    """One charged accounting event (JSON, see ``privacy.services.ledger_events``)."""

    survey = models.ForeignKey(
        "surveys.Survey", on_delete=models.CASCADE, related_name="ledger_entries"
    )
    release = models.OneToOneField(Release, on_delete=models.CASCADE, related_name="ledger_entry")
    event = models.JSONField()
    charged_at = models.DateTimeField(default=timezone.now, editable=False)
    refunded = models.BooleanField(default=False)
    refunded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["charged_at", "id"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.survey_id}: {self.event} ({'refunded' if self.refunded else 'charged'})"


class BudgetState(models.Model):
    """What a survey's ledger has composed, written with every charge (issue 21 item 11).

    ``entries``/``last_entry``/``entry_sum`` fingerprint the non-refunded ledger rows the figure
    is for (count, largest id, sum of ids: entries are only appended or refunded, so no two
    ledgers share one). ``epsilon``/``method``/``candidates`` are the spent figure at ``delta``
    — the tight one when the charge could compute it before taking the lock, else the sound
    ``composed`` bound (:mod:`dpcore.central.ledger_state`). ``composed`` is that state (Σρ, the
    RDP curve, Σε), so a charge composes only its own events onto it. Lists read ``epsilon``
    and never run the accountant; a refund only lowers the true figure, so a stale row still
    over-states, never under-states, what was spent (docs/privacy-model.md#budget).
    """

    survey = models.OneToOneField(
        "surveys.Survey", on_delete=models.CASCADE, primary_key=True, related_name="budget_state"
    )
    entries = models.PositiveIntegerField(default=0)
    last_entry = models.BigIntegerField(default=0)
    entry_sum = models.BigIntegerField(default=0)
    delta = models.FloatField()
    epsilon = models.FloatField()
    method = models.CharField(max_length=20)
    candidates = models.JSONField(default=dict)
    composed = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.survey_id}: ε = {self.epsilon:g} ({self.method}, {self.entries} entries)"
