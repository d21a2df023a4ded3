"""``manage.py seed_demo``: a researcher and an open demo survey with simulated respondents.

Idempotent: the user, the survey (slug ``demo``) and the respondents are created once. Respondents
are *simulated* with a seeded numpy Generator (reproducible; this is a demo, not privacy noise):
each draws true answers from known prevalences, applies the exact randomization protocol of each
question's design (``surveys.collection.simulation``), and the reports go through
``submission_create`` — the
same validation, reports and tally upserts as a real submission. Submission ids come from the same
Generator, so a re-run would be answered "duplicate" rather than double-counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.urls import NoReverseMatch, reverse

from accounts.services import api_token_replace
from dpcore.local import crosswise, default_yes_no_spec, k_rr, warner
from dpcore.local.cheater import cheater_detection
from surveys import inputs, services
from surveys.collection import simulation
from surveys.definitions import question_designs as designs
from surveys.definitions.demo_translations import with_spanish
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from surveys.models import Question, Survey
from surveys.selectors import survey_respondent_count

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password-123"  # noqa: S105 — a published demo credential, local only
DEMO_SLUG = "demo"
DEMO_TOKEN_NAME = "make run (demo)"  # noqa: S105 — a label, not a secret
SEED = 20240611

# The stored kinds of the demo's questions; each design's spec comes from its own constructor
# (``to_spec``), so no kind or design is spelled here.
YES_NO, CHOICE, CATEGORY, NUMBER = (
    Question.Kind.YES_NO.value,
    Question.Kind.CHOICE.value,
    Question.Kind.CATEGORY.value,
    Question.Kind.NUMBER.value,
)

AGE_GROUPS = ["18-29", "30-44", "45-64", "65+"]
AGE_SHARES = [0.30, 0.30, 0.25, 0.15]
# True prevalences the estimates should recover (per age group for the first question).
CHEATED_BY_AGE = {"18-29": 0.40, "30-44": 0.30, "45-64": 0.20, "65+": 0.10}
DROVE_AFTER_DRINKING = 0.15
#: Issue 15's crosswise question: true prevalence, and the innocuous statement (p = ¼).
FAKE_RECEIPT = 0.20
#: The cheating-detection question's truth: honest yes π, cheaters γ (the rest honest no).
BRIBE_HONEST_YES, BRIBE_CHEATERS = 0.10, 0.15
BRIBE_GROUPS = [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]
VOTE_OPTIONS = ["Party A", "Party B", "Party C", "Did not vote"]
VOTE_SHARES = [0.35, 0.30, 0.15, 0.20]
#: Issue 16: the children question is asked only of these age groups (skip logic), and the
#: Likert question's true shares (true mean score 3.05 on 1..5).
CHILDREN_ASKED = ["30-44", "45-64", "65+"]
CHILDREN_MEAN = {"30-44": 1.2, "45-64": 1.8, "65+": 2.1}
LIKERT_OPTIONS = ["Never", "Rarely", "Sometimes", "Often", "Always"]
LIKERT_SHARES = [0.10, 0.20, 0.35, 0.25, 0.10]

DEMO_SURVEY: dict[str, Any] = {
    "title": "Campus life (demo)",
    "description": (
        "A demonstration survey with simulated respondents. Most sensitive questions use "
        "randomized response: your device draws the chance step (coins or a spinner) and keeps "
        "what it shows; only the recorded answer is sent, so nobody can tell whether it is your "
        "true one. One asks only whether two statements are both true or both false "
        "(nothing is drawn). Your age group, hours online (optional) and, from 30 on, your "
        "number of children are asked directly."
    ),
    "access": "open",
    "planned_n": 1000,
    "budget": {"epsilon": 1.0, "delta": 1e-6},
    "questions": [
        {
            "key": "cheated_exam",
            "text": "Have you ever cheated on an exam?",
            "kind": YES_NO,
            "design": default_yes_no_spec(),
        },
        {
            "key": "drove_after_drinking",
            "text": "In the past year, have you driven after drinking more than the legal limit?",
            "kind": YES_NO,
            "design": warner(0.75).to_spec(),
        },
        {
            "key": "vote",
            "text": "Which party did you vote for in the last election?",
            "kind": CHOICE,
            "options": VOTE_OPTIONS,
            "design": k_rr(len(VOTE_OPTIONS), float(np.log(3))).to_spec(),
        },
        {
            "key": "age_group",
            "text": "Your age group",
            "kind": CATEGORY,
            "options": AGE_GROUPS,
        },
        {
            "key": "hours_online",
            "text": "Hours per week spent online for leisure",
            "kind": NUMBER,
            "min": 0,
            "max": 80,
            "required": False,  # optional (issue 16): a few respondents leave it out
        },
        # Appended after the original five (whose order the smoke tests rely on).
        {
            "key": "fake_receipt",
            "text": "I have submitted a fake or inflated receipt for reimbursement.",
            "kind": YES_NO,
            "design": crosswise(
                INNOCUOUS_STATEMENTS[0]["prevalence"], INNOCUOUS_STATEMENTS[0]["text"]
            ).to_spec(),
        },
        {
            "key": "bribe",
            "text": "Have you ever offered a gift or money to get a better grade?",
            "kind": YES_NO,
            "design": cheater_detection(BRIBE_GROUPS).to_spec(),
        },
        # Issue 16: skip logic on a direct question, and an ordered (Likert) randomized choice.
        {
            "key": "children",
            "text": "How many children do you have?",
            "kind": NUMBER,
            "min": 0,
            "max": 12,
            "integer": True,  # issue 22 item 1: 2.5 children is refused
            "show_if": {"key": "age_group", "in": CHILDREN_ASKED},
        },
        {
            "key": "overwhelmed",
            "text": "This term, how often have you felt overwhelmed by coursework?",
            "kind": CHOICE,
            "options": LIKERT_OPTIONS,
            # ε = ln 4: keep with ½ (a coin), else a die picks one of the other four, so the
            # no-JavaScript page can randomize it too.
            "design": k_rr(len(LIKERT_OPTIONS), float(np.log(4))).to_spec(),
            "ordered": True,
        },
    ],
}


def simulate_respondents(survey: Survey, n: int, *, seed: int = SEED) -> int:
    """Submit ``n`` simulated respondents through ``submission_create``; return how many new."""
    rng = np.random.default_rng(seed)
    questions = {q.key: q for q in survey.questions.all()}
    cheated_spec = questions["cheated_exam"].design
    drove_spec = questions["drove_after_drinking"].design
    vote_design = designs.question_design(questions["vote"])
    # The questions added later draw from their own generator, so the original questions' reports
    # (and every estimate shown for them) are the same as before they were added.
    later = np.random.default_rng(seed + 15)
    cheating = np.random.default_rng(seed + 16)  # the cheating-detection question's own
    issue16 = np.random.default_rng(seed + 17)  # the skip-logic and Likert questions' own
    accepted = 0
    for _ in range(n):
        age = AGE_GROUPS[int(rng.choice(len(AGE_GROUPS), p=AGE_SHARES))]
        true_vote = VOTE_OPTIONS[int(rng.choice(len(VOTE_OPTIONS), p=VOTE_SHARES))]
        answers: dict[str, Any] = {
            "cheated_exam": simulation.randomize_yes_no(
                cheated_spec, bool(rng.random() < CHEATED_BY_AGE[age]), rng
            ),
            "drove_after_drinking": simulation.randomize_yes_no(
                drove_spec, bool(rng.random() < DROVE_AFTER_DRINKING), rng
            ),
            "vote": simulation.randomize_choice(
                VOTE_OPTIONS, vote_design.keep_probability, true_vote, rng
            ),
            "age_group": age,
        }
        hours = float(np.clip(round(rng.normal(22, 9), 1), 0, 80))
        if rng.random() > 0.05:  # a few skip the optional number question
            answers["hours_online"] = hours
        answers.update(_later_answers(questions, later))
        answers.update(_cheater_answers(questions, cheating))
        answers.update(_issue16_answers(questions, age, issue16))
        body = {
            "submission_id": simulation.submission_uuid(rng),
            "randomizer": "browser" if rng.random() < 0.9 else "physical",
            "answers": answers,
        }
        spec = inputs.submission_spec(questions=list(questions.values()), data=body)
        outcome = services.submission_create(survey=survey, **spec.kwargs())
        accepted += outcome.status == "accepted"
    return accepted


def _later_answers(questions: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Reports for the questions appended after the original five (issue 15's designs)."""
    answers: dict[str, Any] = {}
    if "fake_receipt" in questions:
        spec = questions["fake_receipt"].design
        answers["fake_receipt"] = simulation.randomize_yes_no(
            spec, bool(rng.random() < FAKE_RECEIPT), rng
        )
    return answers


def _cheater_answers(questions: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The cheating-detection question's report, from its own generator (so the questions before
    it report exactly as before it was added)."""
    if "bribe" not in questions:
        return {}
    u = rng.random()
    status = (
        "honest_yes"
        if u < BRIBE_HONEST_YES
        else "cheater"
        if u < BRIBE_HONEST_YES + BRIBE_CHEATERS
        else "honest_no"
    )
    return {"bribe": simulation.randomize_cheater(questions["bribe"].design, status, rng)}


def _issue16_answers(
    questions: dict[str, Any], age: str, rng: np.random.Generator
) -> dict[str, Any]:
    """The skip-logic question (answered only by the age groups it is shown to, as the page
    would ask it) and the Likert question's k-RR report, from their own generator."""
    answers: dict[str, Any] = {}
    if "children" in questions and age in CHILDREN_ASKED:
        answers["children"] = int(min(12, rng.poisson(CHILDREN_MEAN[age])))
    if "overwhelmed" in questions:
        design = designs.question_design(questions["overwhelmed"])
        truth = LIKERT_OPTIONS[int(rng.choice(len(LIKERT_OPTIONS), p=LIKERT_SHARES))]
        answers["overwhelmed"] = simulation.randomize_choice(
            LIKERT_OPTIONS, design.keep_probability, truth, rng
        )
    return answers


class Command(BaseCommand):
    help = "Create the demo researcher and an open demo survey with simulated respondents."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--respondents", type=int, default=800)
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        user = User.objects.filter(username=DEMO_USERNAME).first()
        if user is None:
            user = User.objects.create_user(username=DEMO_USERNAME, password=DEMO_PASSWORD)
            self.stdout.write(f"Created researcher {DEMO_USERNAME!r}.")
        # A fresh token per run (keys are stored as digests and cannot be printed again); the
        # previous run's is revoked so that `make run` does not pile them up.
        token = api_token_replace(user=user, name=DEMO_TOKEN_NAME)

        survey = Survey.objects.filter(slug=DEMO_SLUG).first()
        if survey is None:
            spec = inputs.survey_spec(with_spanish(DEMO_SURVEY))
            survey = services.survey_create(owner=user, **{**spec.kwargs(), "slug": DEMO_SLUG})
            self.stdout.write(f"Created survey {DEMO_SLUG!r}.")
        if survey.status == Survey.Status.DRAFT:
            services.survey_open(survey=survey)
            survey.refresh_from_db()
        if survey.status == Survey.Status.OPEN and survey.owner_id == user.pk:
            have = survey_respondent_count(survey=survey)
            if have < options["respondents"]:
                added = simulate_respondents(survey, options["respondents"])
                self.stdout.write(f"Simulated {added} respondents (seed {SEED}).")

        base = options["base_url"].rstrip("/")
        try:
            login = reverse("login")
        except NoReverseMatch:
            login = "/accounts/login/"
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"Respondent page : {base}{reverse('respond', args=[DEMO_SLUG])}",
                    f"Researcher login: {base}{login}",
                    f"  username      : {DEMO_USERNAME}",
                    f"  password      : {DEMO_PASSWORD}",
                    f"  API token     : {token.key}",
                    f"Estimates (API) : {base}{reverse('api-survey-estimates', args=[DEMO_SLUG])}",
                ]
            )
        )
