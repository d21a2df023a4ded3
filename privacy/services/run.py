"""Running a release: the body of the Celery task (docs/architecture.md#release-flow).

:func:`release_run` (the Celery task body) computes counts, adds exact integer noise and stores
the results and ``done`` in ONE transaction under a row lock; it skips finished releases, so
redelivery is harmless. A failure before any result is stored marks the release ``failed`` and
refunds its ledger entry; a ``done`` release is never changed (also enforced by
``Release.save`` and a database trigger).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from dpcore.central.release_noise import Noiser
from privacy.models import Release
from privacy.services.refund import release_fail
from privacy.services.results import release_results
from privacy.services.selection import selection_results
from privacy.services.sensitivity import contribution_count
from surveys.analysis.exact_sums import number_sums_exact
from surveys.models import Question, Survey
from surveys.selectors import NumberSums

# A release whose task crashed this many times is failed (and refunded) instead of retried.
MAX_ATTEMPTS = 5


def release_noiser(release: Release, questions: Sequence[Question]) -> Noiser:
    """The release's typed mechanism (read from its stored columns) and its *unit* noise, as the
    plan derived them (one derivation: :meth:`~dpcore.central.mechanisms.DiscreteLaplace.
    unit_noise` and its siblings; the (ε, δ) σ was calibrated at request time and is read back
    from the release, never calibrated again)."""
    mechanism = release.mechanism_spec
    return Noiser(mechanism, mechanism.unit_noise(contribution_count(questions)))


def _exact_number_sums(
    survey: Survey, questions: Sequence[Question], group_by: str
) -> dict[str, dict[str, NumberSums]]:
    """The number questions' n and *exact* sum per group, from the stored submissions
    (:mod:`surveys.analysis.exact_sums`: the sensitivity bound then holds for any n, so no release
    can
    fail because of how many answered)."""
    group_q = survey.questions.get(key=group_by) if group_by else None
    exact = number_sums_exact(survey=survey, questions=questions, group_by=group_q)
    return {
        group: {key: NumberSums(n=n, total=total, total_sq=0.0) for key, (n, total) in by.items()}
        for group, by in exact.items()
    }


def _hold_published(survey: Survey) -> None:
    """PostgreSQL: ``FOR SHARE`` on the survey row until the release is stored. No batch is
    published meanwhile (a sealer's ``FOR NO KEY UPDATE`` waits), so the counts and the exact
    sums are read from the same batches; submissions keep committing (``FOR KEY SHARE`` does not
    conflict). SQLite has one writer at a time and no row locks."""
    if connection.vendor != "postgresql":
        return
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {qn(Survey._meta.db_table)} WHERE {qn('id')} = %s FOR SHARE",  # noqa: S608
            [survey.pk],
        )


def _store(release: Release, results: dict[str, object]) -> str:
    """The results and ``done``, in the caller's transaction (write-once from here on)."""
    release.results = results
    release.status = Release.Status.DONE
    release.finished_at = timezone.now()
    release.error = ""
    release.save(update_fields=["results", "status", "finished_at", "error"])
    return release.status


def release_run(*, release_id: uuid.UUID | str) -> str:
    """Compute one release (the body of :func:`privacy.tasks.release_compute`); returns status.

    Idempotent: a done or failed release is skipped. Raises ``Release.DoesNotExist`` if the row
    is not there (the task retries). Any other exception before the results are stored fails and
    refunds the release, then propagates.
    """
    from surveys.selectors import survey_counts

    with transaction.atomic():
        release = Release.objects.select_for_update().get(pk=release_id)
        if release.is_final:
            return release.status
        if release.attempts >= MAX_ATTEMPTS:
            release_fail(release_id=release.pk, error="Too many attempts; the charge is refunded.")
            return Release.Status.FAILED
        release.status = Release.Status.RUNNING
        release.started_at = timezone.now()
        release.attempts += 1
        release.save(update_fields=["status", "started_at", "attempts"])

    try:
        with transaction.atomic():
            # The release row only: with select_related, FOR UPDATE also locked the survey row,
            # and every submission of the survey (its foreign key check takes FOR KEY SHARE on
            # that row) waited for the whole computation.
            release = (
                Release.objects.select_for_update(of=("self",))
                .select_related("survey")
                .get(pk=release_id)
            )
            if release.is_final:  # another delivery finished it meanwhile
                return release.status
            survey = release.survey
            _hold_published(survey)
            by_key = {q.key: q for q in survey.questions.all()}
            questions = [by_key[k] for k in release.questions]
            if release.mechanism == Release.Mechanism.EXPONENTIAL:
                results = selection_results(release=release, survey=survey, questions=questions)
                return _store(release, results)
            counts = survey_counts(
                survey=survey,
                question_keys=release.questions,
                group_by=release.group_by or None,
                # Published batches only (DESIGN §8.5): a high-ε release minus the published
                # estimates would otherwise give the unpublished tail's reports, one by one.
            )
            number_sums = _exact_number_sums(survey, questions, release.group_by)
            results = release_results(
                release=release,
                counts_cells=counts.cells,
                counts_sums=number_sums,
                questions=questions,
                noiser=release_noiser(release, questions),
            )
            return _store(release, results)
    except (OperationalError, InterfaceError):
        # The database blinked (restart, failover): nothing was stored, the release stays
        # running, and the task's autoretry (or, past its retries, the sweeper) runs it again.
        # MAX_ATTEMPTS still bounds the total, so a release always ends done or refunded.
        raise
    except Exception as exc:
        from celery.exceptions import SoftTimeLimitExceeded

        if isinstance(exc, SoftTimeLimitExceeded):
            message = "The computation took too long; the charge is refunded."
        else:
            message = f"The computation failed ({type(exc).__name__}); the charge is refunded."
        release_fail(release_id=release_id, error=message)
        raise
