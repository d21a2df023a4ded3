"""The crosswise kind's page hooks: SAME/DIFFERENT radios, no device, words about the second
statement, its own partial, chart row and researcher note."""

from __future__ import annotations

from types import SimpleNamespace

from django.utils import translation

from surveys.kinds import kind_of
from surveys.kinds.crosswise import CROSSWISE_LABEL, CROSSWISE_STEPS
from surveys.pages.protection import survey_handling
from tests.surveys.kinds.pages_support import form_field, question, template_source, values

DESIGN = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "Born in spring."}


def test_the_radios_post_same_as_true() -> None:
    field = form_field(question("yes_no", DESIGN))
    assert values(field) == ["same", "different"]
    assert field.clean("same") is True
    assert field.clean("different") is False
    with translation.override("es"):
        assert form_field(question("yes_no", DESIGN)).error_messages["required"] == (
            "Marca IGUAL o DISTINTA."
        )


def test_no_coin_is_needed_with_or_without_javascript() -> None:
    q = question("yes_no", DESIGN)
    protocol = kind_of(q).physical_protocol(q)
    assert protocol.possible
    assert protocol.steps == [str(step) for step in CROSSWISE_STEPS]


def test_the_words_name_the_second_statement_and_no_randomizer() -> None:
    q = question("yes_no", DESIGN)
    words = kind_of(q).protection(q, {})
    assert words["randomizer"]["kind"] == "none"
    assert words["randomizer"]["innocuous_text"] == "Born in spring."
    assert "25%" in words["randomizer"]["how"]
    assert words["handling_text"].startswith("Crosswise: only SAME or DIFFERENT is sent")
    # LR(same) = p/(1 − p) = 1/3: SAME favours "no".
    assert words["reports"]["yes"]["likelihood_ratio"] == 0.25 / 0.75


def test_it_is_counted_apart_in_the_survey_words() -> None:
    words = survey_handling([question("yes_no", DESIGN)], None)
    assert words["summary"].startswith("One question asks only whether two statements")


def test_its_partial_is_the_crosswise_one() -> None:
    assert 'data-role="crosswise"' in template_source(question("yes_no", DESIGN))


def test_its_chart_row_says_same_and_prevalence() -> None:
    estimate = SimpleNamespace(n=4, reported_yes_rate=0.5, estimate=0.5)
    (row,) = kind_of(question("yes_no", DESIGN)).chart_rows(estimate, {"key": "q1"})
    assert (row["label"], row["reported_label"]) == (CROSSWISE_LABEL, "SAME")


def test_its_statement_is_translated_with_the_survey() -> None:
    assert kind_of(question("yes_no", DESIGN)).translated_design_fields == ("innocuous_text",)
    assert kind_of(question("yes_no")).translated_design_fields == ()


def test_no_device_realises_it() -> None:
    """``surveys.definitions.physical`` lists the designs a device runs; crosswise is not one of
    them."""
    from surveys.definitions import physical
    from surveys.definitions import question_designs as designs

    design = designs.question_design(question("yes_no", DESIGN))
    assert physical.physical_realisation(design) is None
    # A listed design still gets its device (the default coins: a coin, 4 faces).
    assert physical.physical_realisation(designs.question_design(question("yes_no"))) is not None
