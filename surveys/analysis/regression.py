"""Read-side analysis (docs/analysis.md): logistic regression of a randomized yes/no question on
direct questions, and group comparisons for the estimates.

The math is in ``dpcore.local`` (pure); this module turns a survey's published (sealed)
submissions into pooled covariate patterns with one ``GROUP BY`` query and shapes the JSON.
Only reported (randomized) outcomes are read — the server never has a true answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deniable.errors import InvalidInput
from deniable.renderers import CSVTable
from dpcore.local import compare
from dpcore.local.regression import RegressionFit, fit_logistic
from surveys.analysis import latent_logistic
from surveys.analysis import linear_regression as linear
from surveys.analysis.regression_rows import RegressionData, regression_data
from surveys.analysis.regression_shared import fit_body, require_respondents
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of, stored_kind_choices
from surveys.kinds._definitions import definition_kind
from surveys.models import Question, Survey


def __getattr__(name: str) -> tuple[str, ...]:
    """``PREDICTOR_KINDS``: the stored kinds a regression may take as predictors (kept for the
    analysis page; new code asks ``kind_of(q).predictor``)."""
    if name == "PREDICTOR_KINDS":
        return tuple(k for k in stored_kind_choices() if definition_kind(k).predictor)
    raise AttributeError(name)


def is_linear(question: Question) -> bool:
    """Whether the question's reports follow one linear model P(yes) = c·π + d (every binary
    design but cheater detection, whose two groups and cheater share are estimated jointly:
    docs/formulas.md#cheater-detection). Regression and comparisons need that model."""
    return kind_of(question).linear_model


def _question_map(survey: Survey) -> dict[str, Question]:
    return {q.key: q for q in survey.questions.all()}


def _validate(
    questions: dict[str, Question], outcome: str, predictors: Sequence[str]
) -> tuple[Question, list[Question]]:
    """The query's keys against the survey: a yes_no outcome, category/number predictors (400s
    naming ``outcome`` or ``predictors``; their shapes were checked by
    ``surveys.inputs.analysis``)."""
    out_q = questions.get(outcome)
    if out_q is None:
        raise InvalidInput.single("outcome", f"No question with key {outcome!r}.")
    refused = kind_of(out_q).outcome_error(outcome)
    if refused is not None:
        raise InvalidInput.single("outcome", refused)
    chosen: list[Question] = []
    for key in predictors:
        if key == out_q.key:
            raise InvalidInput.single("predictors", "The outcome cannot be a predictor.")
        q = questions.get(key)
        if q is None:
            raise InvalidInput.single("predictors", f"No question with key {key!r}.")
        if not kind_of(q).predictor:
            raise InvalidInput.single(
                "predictors",
                f"{key!r} is {q.kind}: predictors must be category, number, or randomized "
                "yes/no questions.",
            )
        chosen.append(q)
    return out_q, chosen


def validate_keys(
    survey: Survey, outcome: str, predictors: Sequence[str], family: str = "logistic"
) -> None:
    """The 400s of ``survey_regression`` without running it (for the background path)."""
    questions = _question_map(survey)
    if family == "linear":
        linear.validate_linear(questions, outcome, predictors)
    elif latent_logistic.latent_keys(questions, outcome, predictors):
        latent_logistic.validate_latent(questions, outcome, predictors)
    else:
        _validate(questions, outcome, predictors)


def survey_regression(
    *,
    survey: Survey,
    outcome: str,
    predictors: Sequence[str],
    confidence: float = 0.95,
    family: str = "logistic",
) -> dict[str, Any]:
    """The JSON body of ``GET …/regression/`` (docs/analysis.md), from a validated query
    (``surveys.inputs.analysis.regression_query``): ``family`` logistic (a randomized yes/no
    outcome; with randomized predictors surveys.analysis.latent_logistic) or linear (a number
    outcome: surveys.analysis.linear_regression)."""
    if family == "linear":
        return linear.linear_regression(
            survey=survey,
            questions=_question_map(survey),
            outcome=outcome,
            predictors=predictors,
            confidence=confidence,
        )
    questions = _question_map(survey)
    if latent_logistic.latent_keys(questions, outcome, predictors):  # randomized predictors
        return latent_logistic.latent_logistic_regression(
            survey=survey,
            questions=questions,
            outcome=outcome,
            predictors=predictors,
            confidence=confidence,
        )
    out_q, pred_qs = _validate(questions, outcome, predictors)
    data = regression_data(survey, out_q, pred_qs)
    terms = data.terms
    require_respondents(int(sum(data.total)), len(terms), "terms")
    design = designs.question_design(out_q)
    fit = fit_logistic(
        data.x, data.yes, data.total, c=design.c, d=design.d, terms=terms, confidence=confidence
    )
    return regression_body(survey, out_q, fit, data)


def regression_body(
    survey: Survey, outcome: Question, fit: RegressionFit, data: RegressionData
) -> dict[str, Any]:
    return fit_body(
        survey, outcome, fit, data, design=designs.design_description(outcome), family="logistic"
    )


COEFFICIENT_COLUMNS = (
    "term",
    "estimate",
    "std_error",
    "ci_low",
    "ci_high",
    "z",
    "p_value",
    "odds_ratio",
)
FIT_COLUMNS = (
    "outcome",
    "n",
    "n_excluded",
    "log_likelihood",
    "converged",
    "iterations",
    "confidence",
)
#: The baseline, as text: "key=option" per category predictor, joined with " | " (the JSON has
#: the exact mappings).
BASELINE_COLUMNS = ("reference", "dropped_levels")
LINEAR_COLUMNS = ("sigma", "sigma_std_error")


def _joined(pairs: list[str]) -> str | None:
    return " | ".join(pairs) if pairs else None


def regression_table(body: dict[str, Any]) -> CSVTable:
    """One row per coefficient, the fit's figures repeated on every row (tidy, no comment lines),
    its baseline (reference levels, levels without fitted respondents) and its warnings joined in
    the last columns; cells as every Deniable CSV writes them (deniable.csv_cells: text cells are
    ``'`` + the exact text, numbers bare)."""
    fit = [
        str(body["outcome"]),
        *(body[name] for name in FIT_COLUMNS[1:]),
        _joined([f"{key}={option}" for key, option in body["reference"].items()]),
        _joined([f"{k}={o}" for k, options in body["dropped_levels"].items() for o in options]),
        _joined(list(body["warnings"])),
    ]
    rows = [
        [str(co["term"])] + [co[name] for name in COEFFICIENT_COLUMNS[1:]] + fit
        for co in body["coefficients"]
    ]
    header = [*COEFFICIENT_COLUMNS, *FIT_COLUMNS, *BASELINE_COLUMNS, "warnings"]
    if body["family"] == "linear":  # σ and its SE, on every row like the fit's other figures
        header.extend(LINEAR_COLUMNS)
        rows = [[*row, *(body[name] for name in LINEAR_COLUMNS)] for row in rows]
    return CSVTable(header=header, rows=rows)


# --- Group comparisons (GET …/estimates/?group_by=…&compare=true) -------------------------------

TRUE_WORDS, FALSE_WORDS = ("true", "1", "yes"), ("false", "0", "no", "")


def wants_compare(raw: str | None, group_by: str | None) -> bool:
    """``compare`` as a boolean; it needs ``group_by`` (400 naming ``compare`` otherwise)."""
    word = (raw or "").strip().lower()
    if word not in TRUE_WORDS + FALSE_WORDS:
        raise InvalidInput.single("compare", "One of: true, false.")
    if word in TRUE_WORDS and not group_by:
        raise InvalidInput.single("compare", "Comparisons need group_by (a category question).")
    return word in TRUE_WORDS


def _difference_dicts(diffs: Sequence[Any], option: str | None = None) -> list[dict[str, Any]]:
    extra = {} if option is None else {"option": option}
    return [
        {
            "group": d.group,
            **extra,
            "difference": d.difference,
            "std_error": d.std_error,
            "ci_low": d.ci_low,
            "ci_high": d.ci_high,
            "p_value": d.p_value,
            "p_value_holm": d.p_value_holm,
        }
        for d in diffs
    ]


def _binary_comparison(q: Question, entries: list[tuple[str, dict[str, Any]]], confidence: float):
    design = designs.question_design(q)
    groups = [(g, e["reported_yes"], e["n"]) for g, e in entries]
    reference, diffs = compare.differences(groups, c=design.c, d=design.d, confidence=confidence)
    test = compare.homogeneity_test(
        [[e["reported_yes"], e["n"] - e["reported_yes"]] for _, e in entries]
    )
    return reference, "equal_prevalence", test, _difference_dicts(diffs)


def _option_differences(
    q: Question, entries: list[tuple[str, dict[str, Any]]], i: int, confidence: float
) -> tuple[Any, list[dict[str, Any]]]:
    """Option ``i``'s reports compared across groups as a yes/no question's (a choice option's
    or a multi box's: both are binary reports through (c, d))."""
    design = designs.question_design(q)
    groups = [(g, e["options"][i]["reported"], e["n"]) for g, e in entries]
    reference, diffs = compare.differences(groups, c=design.c, d=design.d, confidence=confidence)
    return reference, _difference_dicts(diffs, q.options[i])


def _choice_comparison(q: Question, entries: list[tuple[str, dict[str, Any]]], confidence: float):
    rows: list[dict[str, Any]] = []
    reference = None
    for i in range(len(q.options)):
        reference, option_rows = _option_differences(q, entries, i, confidence)
        rows.extend(option_rows)
    table = [[o["reported"] for o in e["options"]] for _, e in entries]
    return reference, "equal_distributions", compare.homogeneity_test(table), rows


def _multi_comparison(q: Question, entries: list[tuple[str, dict[str, Any]]], confidence: float):
    """Per option, the yes/no comparison of its reports (one test and Holm set per option); the
    question has no single test, so ``statistic``/``df``/``p_value`` are None and ``tests``
    holds each option's chi-square test of equal prevalence."""
    rows: list[dict[str, Any]] = []
    tests: list[dict[str, Any]] = []
    reference = None
    for i, option in enumerate(q.options):
        reference, option_rows = _option_differences(q, entries, i, confidence)
        rows.extend(option_rows)
        test = compare.homogeneity_test(
            [
                [e["options"][i]["reported"], e["n"] - e["options"][i]["reported"]]
                for _, e in entries
            ]
        )
        tests.append(
            {"option": option, "statistic": test.statistic, "df": test.df, "p_value": test.p_value}
        )
    return reference, tests, rows


def _shown_groups(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The groups with figures: a suppressed group (fewer than k respondents) has none, and is
    never compared (issue 21, item 15)."""
    return [group for group in body["groups"] if not group.get("suppressed")]


def add_comparisons(body: dict[str, Any], *, survey: Survey) -> None:
    """Add ``"comparison"`` to each yes_no and choice question of an estimates body that has
    ``groups`` (docs/analysis.md): differences from the first group with respondents, Holm-adjusted
    p-values (per option for choice), and the chi-square test of homogeneity of the reports."""
    questions = _question_map(survey)
    confidence = body["confidence"]
    for entry in body["questions"]:
        q = questions.get(entry["key"])
        if q is None:
            continue
        kind = kind_of(q)
        per_group = [  # the grouping question itself is in no group's list
            (group["group"], e)
            for group in _shown_groups(body)
            for e in group["questions"]
            if e["key"] == q.key
        ]
        own = kind.compare_groups(q, per_group, confidence)  # e.g. cheating detection's π, γ
        if own is not None:
            entry["comparison"] = own
            continue
        comparison = kind.comparison
        if comparison is None:
            continue  # direct kinds
        if comparison == "per_option":
            reference, tests, diffs = _multi_comparison(q, per_group, confidence)
            entry["comparison"] = {
                "reference": reference,
                "test": "equal_prevalence_per_option",
                "statistic": None,
                "df": None,
                "p_value": None,
                "tests": tests,
                "differences": diffs,
            }
            continue
        build = _binary_comparison if comparison == "binary" else _choice_comparison
        reference, test_name, test, diffs = build(q, per_group, confidence)
        entry["comparison"] = {
            "reference": reference,
            "test": test_name,
            "statistic": test.statistic,
            "df": test.df,
            "p_value": test.p_value,
            "differences": diffs,
        }
