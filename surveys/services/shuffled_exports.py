"""The shuffled file of a closed survey: produced once, then served as stored (issue 27;
docs/exports.md#the-shuffled-file).

Produced on the first request, under the survey's row lock in one transaction (the same lock
every status change takes), and stored with its SHA-256; every later request, however many come
at once, gets those bytes. So no two files of one survey exist to be differenced, and the
one-to-one constraint makes a second row impossible even outside this path. A closed survey never
reopens (surveys.definitions.freeze: closed ↔ archived only) and its unsealed tail is never
published after closing, so the reports the file was made from never change.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from deniable.errors import Conflict, ErrorCode
from surveys.analysis import shuffled
from surveys.models import ShuffledExport, Survey

#: The statuses whose reports are final.
FINAL = (Survey.Status.CLOSED, Survey.Status.ARCHIVED)


def shuffled_export_get_or_produce(*, survey: Survey) -> ShuffledExport:
    """The stored file, produced first if it does not exist; 409 ``survey_open`` until the survey
    is closed."""
    stored = ShuffledExport.objects.filter(survey=survey).first()
    if stored is not None:
        return stored
    try:
        with transaction.atomic():
            locked = Survey.objects.select_for_update().get(pk=survey.pk)
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
