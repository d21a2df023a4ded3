"""The shuffled file made by a real worker when the survey closes (issue 27): with a broker the
web request never builds it (docs/exports.md#the-shuffled-file)."""

from __future__ import annotations

import pytest

from surveys.models import ShuffledExport
from surveys.services import survey_close
from tests.surveys.analysis.test_shuffled import _api, _survey, _url
from testsupport.factories import make_user, reload
from testsupport.processes import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_closing_enqueues_the_file_and_the_worker_makes_it(workers):
    owner = make_user("owner")
    survey = _survey(owner, 12, close=False)
    workers.start()
    survey_close(survey=reload(survey))
    made = lambda: ShuffledExport.objects.filter(survey=survey).exists()  # noqa: E731
    assert wait_until(made, 60), workers.workers[0].output()
    stored = ShuffledExport.objects.get(survey=survey)
    r = _api(owner).get(_url(survey))
    assert r.status_code == 200 and r.content.decode("utf-8") == stored.json_text
