"""The import service: one transaction (a refused or failing form leaves nothing), validator
errors named by cell, and the same creation path (and audit entry) as the API's create."""

from __future__ import annotations

import pytest

from audit.models import Entry
from deniable.errors import InvalidInput
from surveys.models import Question, Survey
from surveys.services.xlsform import survey_import_xlsform
from tests.surveys.xlsform.support import workbook

pytestmark = pytest.mark.django_db


def _form(*rows: list[object]) -> bytes:
    return workbook(
        {
            "survey": [["type", "name", "label", "constraint"], *rows],
            "settings": [["form_title"], ["Service"]],
        }
    )


def test_a_valid_form_is_created_once_with_its_audit_entry(alice):
    survey = survey_import_xlsform(
        owner=alice, data=_form(["integer", "age", "Age", ". >= 0 and . <= 9"])
    )
    assert survey.status == "draft" and survey.questions.count() == 1
    assert Entry.objects.filter(action="survey.create", survey_slug=survey.slug).count() == 1


def test_validator_errors_are_named_by_cell_and_nothing_is_written(alice):
    data = _form(
        ["integer", "age", "Age", ". >= 5 and . <= 1"],  # min above max
        ["decimal", "age", "Again", ". >= 0 and . <= 1"],  # the key twice
        ["integer", "h", "Hours", ""],  # no bounds
    )
    with pytest.raises(InvalidInput) as caught:
        survey_import_xlsform(owner=alice, data=data)
    assert all("!" in ref for ref in caught.value.errors), caught.value.errors
    assert Survey.objects.count() == Question.objects.count() == 0
