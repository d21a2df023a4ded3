"""The shuffled file of a closed survey: produced once, then served as stored (issue 27;
docs/exports.md#the-shuffled-file).

Produced on the first request, under the survey's row lock in one transaction (the same lock
every status change takes), and stored with its SHA-256; every later request, however many come
at once, gets those bytes. So no two files of one survey exist to be differenced, and the
one-to-one constraint makes a second row impossible even outside this path. A closed survey never
reopens (surveys.definitions.freeze: closed ↔ archived only) and its unsealed tail is never
published after closing, so the reports the file was made from never change.

With a worker (``REDIS_URL``), closing a survey enqueues the file's production
(:func:`shuffled_export_enqueue`): at 10⁶ respondents it takes ~25 s of CPU (bench/RESULTS.md §13),
more than a web request may hold. A request that finds it being made is told so (202, try again)
instead of waiting on the lock; one that finds no file and no lock makes it, as before (a broker
that was down at closing loses nothing). Embedded mode (tasks in-process) makes it on the first
request only: closing a survey there must not wait on it.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.db import IntegrityError, OperationalError, connection, transaction

from deniable.errors import Conflict, ErrorCode
from surveys.analysis import shuffled
from surveys.models import ShuffledExport, Survey

logger = logging.getLogger(__name__)

#: The statuses whose reports are final.
FINAL = (Survey.Status.CLOSED, Survey.Status.ARCHIVED)
#: The production task's registered name (surveys.tasks); known by name, so tasks → services
#: stays the only direction of import.
PRODUCE_TASK = "surveys.tasks.shuffled_export_produce"


class ShuffledExportPreparing(Exception):
    """Another transaction holds the survey's lock, making the file (or changing the survey)."""


def shuffled_export_get_or_produce(*, survey: Survey, wait: bool = False) -> ShuffledExport:
    """The stored file, produced first if it does not exist; 409 ``survey_open`` until the survey
    is closed. Without ``wait``, a survey whose row lock is held (the worker making the file)
    raises :class:`ShuffledExportPreparing` at once (PostgreSQL's ``NOWAIT``; SQLite has no row
    lock and simply proceeds)."""
    stored = ShuffledExport.objects.filter(survey=survey).first()
    if stored is not None:
        return stored
    nowait = not wait and connection.features.has_select_for_update_nowait
    try:
        with transaction.atomic():
            try:
                locked = Survey.objects.select_for_update(nowait=nowait).get(pk=survey.pk)
            except OperationalError as exc:
                if nowait:
                    raise ShuffledExportPreparing from exc
                raise
            if locked.status not in FINAL:
                raise Conflict(
                    "The shuffled file is made once, from a closed survey: close the survey first.",
                    code=ErrorCode.SURVEY_OPEN,
                )
            # A request that waited on the lock finds the file its predecessor stored.
            stored = ShuffledExport.objects.filter(survey=locked).first()
            if stored is None:
                stored = ShuffledExport.objects.create(survey=locked, **shuffled.build(locked))
    except IntegrityError:
        # SQLite has no row lock: a concurrent first request stored its file first (the
        # one-to-one constraint refused ours, rolled back whole); serve that one.
        stored = ShuffledExport.objects.get(survey=survey)
    return stored


def shuffled_export_produce(*, survey_id: int) -> bool:
    """The task's body: make the file of a closed survey if it has none (idempotent; waits for
    the lock). False when there is nothing to make (gone, not closed, or made already)."""
    survey = Survey.objects.filter(pk=survey_id).first()
    if survey is None or survey.status not in FINAL:
        return False
    if ShuffledExport.objects.filter(survey=survey).exists():
        return False
    shuffled_export_get_or_produce(survey=survey, wait=True)
    return True


def shuffled_export_enqueue(*, survey_id: int) -> bool:
    """Hand the file's production to the worker; never raises (the first request makes the file
    if this fails). Embedded mode enqueues nothing (module notes)."""
    try:
        task = current_app.tasks[PRODUCE_TASK]
        if task.app.conf.task_always_eager:
            return False
        task.apply_async(args=(survey_id,), retry=False)
    except Exception:  # noqa: BLE001 - any broker failure: the first download makes it
        logger.warning("survey %s: shuffled file enqueue failed; made on first request", survey_id)
        return False
    return True
