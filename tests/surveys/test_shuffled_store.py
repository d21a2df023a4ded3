"""The stored shuffled file is write-once (issue 27; surveys/shuffled_store.py)."""

from __future__ import annotations

import pytest

from surveys import services
from surveys.models import ShuffledExport
from tests.surveys.analysis.test_shuffled import _survey
from testsupport.factories import make_user, reload

pytestmark = pytest.mark.django_db


@pytest.mark.both_backends
def test_a_stored_file_is_never_changed_or_deleted_alone():
    """Attack: a staff account or a code path replaces or deletes the stored file, so that the
    next download makes a second shuffle of the same reports — which could be differenced with
    the first. Save, bulk update (the database trigger) and deletion by instance or queryset are
    refused; deleting the survey still deletes it."""
    from django.db import IntegrityError, InternalError, transaction

    from surveys.models import ShuffledExportImmutable

    owner = make_user("owner")
    survey = _survey(owner, 5)
    stored = services.shuffled_export_get_or_produce(survey=survey)
    digest = stored.json_sha256
    stored.json_text = "{}"
    with pytest.raises(ShuffledExportImmutable):
        stored.save()
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        ShuffledExport.objects.filter(pk=stored.pk).update(json_text="{}")
    # (The deletion collector's own atomic block has no savepoint: each attempt gets one here.)
    with pytest.raises(ShuffledExportImmutable), transaction.atomic():
        ShuffledExport.objects.get(pk=stored.pk).delete()
    with pytest.raises(ShuffledExportImmutable), transaction.atomic():
        ShuffledExport.objects.filter(survey=survey).delete()
    assert ShuffledExport.objects.get(survey=survey).json_sha256 == digest
    services.survey_delete(survey=reload(survey), confirm=survey.slug)
    assert not ShuffledExport.objects.exists()
