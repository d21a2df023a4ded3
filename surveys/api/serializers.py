"""API serializers: request shapes (for the OpenAPI document) and response representations.

Request bodies are validated by the services (one place for the rules, shared with the pages,
errors named like ``questions[0].design.p_truth``); the request serializers here describe those
bodies in the schema. Response serializers turn models into the DESIGN.md §8 field names.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from surveys import designs
from surveys.models import Question, Submission, Survey
from surveys.selectors import survey_respondent_count

# --- Errors -------------------------------------------------------------------------------------


class FieldErrorsSerializer(serializers.Serializer):
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Messages per field, e.g. {"answers.q1": ["Must be a boolean …"]}.',
    )


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="A machine-readable code, e.g. survey_closed.")
    detail = serializers.CharField()


# --- Auth ---------------------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"})


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField()


# --- Surveys (requests) -------------------------------------------------------------------------


class SurveyBudgetInSerializer(serializers.Serializer):
    epsilon = serializers.FloatField(required=False, default=1.0, help_text="ε_total > 0.")
    delta = serializers.FloatField(
        required=False,
        default=1e-6,
        help_text="δ_total in [1e-100, 1e-3]; keep it below 1/respondents.",
    )


class QuestionInSerializer(serializers.Serializer):
    key = serializers.SlugField(max_length=64, help_text="Unique within the survey.")
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    design = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text=(
            'yes_no: {"name":"forced_response","p_truth","p_yes","p_no"} (default ½, ¼, ¼), '
            '{"name":"warner","p"} or {"name":"unrelated_question","p","innocuous_prevalence"}; '
            'choice: {"name":"k_rr","epsilon"} (default ε = ln 3). Designs with ε = ∞ or ε > 10 '
            "are refused."
        ),
    )
    options = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        help_text="choice and category: 2 to 50 unique options.",
    )
    min = serializers.FloatField(required=False, help_text="number: lower bound, |min| ≤ 1e9.")
    max = serializers.FloatField(
        required=False, help_text="number: upper bound (> min), |max| ≤ 1e9."
    )


class SurveyInSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True)
    access = serializers.ChoiceField(choices=Survey.Access.choices, required=False)
    budget = SurveyBudgetInSerializer(required=False)
    closes_at = serializers.DateTimeField(required=False, allow_null=True)
    response_cap = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    planned_n = serializers.IntegerField(required=False, min_value=1)
    questions = QuestionInSerializer(many=True)


class SurveyPatchSerializer(SurveyInSerializer):
    title = serializers.CharField(max_length=200, required=False)
    questions = QuestionInSerializer(many=True, required=False, help_text="Replaces all.")


# --- Surveys (responses) ------------------------------------------------------------------------


class QuestionOutSerializer(serializers.Serializer):
    key = serializers.CharField()
    position = serializers.IntegerField()
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    design = serializers.SerializerMethodField()
    options = serializers.ListField(child=serializers.CharField())
    min = serializers.FloatField(source="min_value", allow_null=True)
    max = serializers.FloatField(source="max_value", allow_null=True)
    epsilon = serializers.SerializerMethodField()
    randomized = serializers.BooleanField(source="is_randomized")

    @extend_schema_field(
        serializers.DictField(allow_null=True, help_text="null for category and number.")
    )
    def get_design(self, question: Question) -> dict[str, Any] | None:
        return designs.design_description(question)

    @extend_schema_field(
        serializers.FloatField(allow_null=True, help_text="null when asked directly.")
    )
    def get_epsilon(self, question: Question) -> float | None:
        return designs.question_epsilon(question)


class SurveyBudgetSerializer(serializers.Serializer):
    epsilon = serializers.FloatField()
    delta = serializers.FloatField()


class LinksSerializer(serializers.Serializer):
    respondent = serializers.URLField()
    self = serializers.URLField()
    estimates = serializers.URLField()
    export = serializers.URLField()
    responses = serializers.URLField()
    invitations = serializers.URLField()


class SurveyOutSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    access = serializers.ChoiceField(choices=Survey.Access.choices)
    status = serializers.ChoiceField(choices=Survey.Status.choices)
    closes_at = serializers.DateTimeField(allow_null=True)
    response_cap = serializers.IntegerField(allow_null=True)
    planned_n = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    budget = serializers.SerializerMethodField()
    respondents = serializers.SerializerMethodField()
    epsilon_local_total = serializers.SerializerMethodField()
    questions = QuestionOutSerializer(many=True, source="questions.all")
    links = serializers.SerializerMethodField()

    @extend_schema_field(SurveyBudgetSerializer)
    def get_budget(self, survey: Survey) -> dict[str, float]:
        return {"epsilon": survey.budget_epsilon, "delta": survey.budget_delta}

    @extend_schema_field(OpenApiTypes.INT)
    def get_respondents(self, survey: Survey) -> int:
        annotated = getattr(survey, "respondents", None)
        if annotated is not None:
            return int(annotated)
        return survey_respondent_count(survey=survey)

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_epsilon_local_total(self, survey: Survey) -> float:
        return designs.epsilon_local_total(survey.questions.all())

    @extend_schema_field(LinksSerializer)
    def get_links(self, survey: Survey) -> dict[str, str]:
        request = self.context.get("request")

        def url(path: str) -> str:
            return request.build_absolute_uri(path) if request is not None else path

        slug = [survey.slug]
        return {
            "respondent": url(reverse("respond", args=slug)),
            "self": url(reverse("api-survey", args=slug)),
            "estimates": url(reverse("api-survey-estimates", args=slug)),
            "export": url(reverse("api-survey-export", args=slug) + "?format=csv"),
            "responses": url(reverse("api-survey-responses", args=slug)),
            "invitations": url(reverse("api-survey-invitations", args=slug)),
        }


# --- Invitations --------------------------------------------------------------------------------


class InvitationRequestSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=10_000)
    format = serializers.ChoiceField(
        choices=["json", "csv"],
        default="json",
        help_text="csv: a download (<slug>-invitations.csv) with one respondent link per line.",
    )


class InvitationResponseSerializer(serializers.Serializer):
    tokens = serializers.ListField(
        child=serializers.CharField(), help_text="Shown once: only HMAC digests are stored."
    )
    links = serializers.ListField(
        child=serializers.CharField(),
        help_text="The respondent links, …/s/<slug>/#t=<token> (the token stays out of logs).",
    )


class InvitationCountsSerializer(serializers.Serializer):
    issued = serializers.IntegerField(help_text="Every token ever created for the survey.")
    used = serializers.IntegerField(help_text="Spent by a submission.")
    revoked = serializers.IntegerField(help_text="Withdrawn before use.")
    remaining = serializers.IntegerField(help_text="issued - used - revoked: links that work.")


class InvitationRevokeSerializer(serializers.Serializer):
    revoked = serializers.IntegerField(help_text="How many unused tokens this call revoked.")
    counts = InvitationCountsSerializer()


# --- Responses (respondents) --------------------------------------------------------------------


class SubmissionRequestSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField(help_text="A random uuid4 made by the client.")
    token = serializers.CharField(required=False, allow_null=True, help_text="Invite surveys.")
    randomizer = serializers.ChoiceField(choices=Submission.Randomizer.choices)
    answers = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        help_text=(
            "question key → REPORTED answer: yes_no a boolean, choice/category an option string, "
            "number a number within the bounds. Randomized questions are required."
        ),
    )


class SubmissionResponseSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField()
    status = serializers.CharField(help_text='"accepted" (201) or "duplicate" (200).')


# --- Estimates ----------------------------------------------------------------------------------


class OptionEstimateSerializer(serializers.Serializer):
    option = serializers.CharField()
    reported = serializers.IntegerField(required=False, help_text="choice")
    reported_rate = serializers.FloatField(allow_null=True, required=False)
    estimate = serializers.FloatField(allow_null=True, required=False)
    estimate_unclipped = serializers.FloatField(allow_null=True, required=False)
    std_error = serializers.FloatField(allow_null=True, required=False)
    ci_low = serializers.FloatField(allow_null=True, required=False)
    ci_high = serializers.FloatField(allow_null=True, required=False)
    count = serializers.IntegerField(required=False, help_text="category")
    share = serializers.FloatField(allow_null=True, required=False, help_text="category")


class QuestionEstimateSerializer(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    epsilon = serializers.FloatField(allow_null=True)
    design = serializers.JSONField(allow_null=True)
    n = serializers.IntegerField()
    reported_yes = serializers.IntegerField(required=False, help_text="yes_no")
    reported_yes_rate = serializers.FloatField(allow_null=True, required=False)
    estimate = serializers.FloatField(allow_null=True, required=False)
    estimate_unclipped = serializers.FloatField(allow_null=True, required=False)
    std_error = serializers.FloatField(allow_null=True, required=False)
    ci_low = serializers.FloatField(allow_null=True, required=False)
    ci_high = serializers.FloatField(allow_null=True, required=False)
    options = OptionEstimateSerializer(many=True, required=False, help_text="choice, category")
    min = serializers.FloatField(required=False, help_text="number")
    max = serializers.FloatField(required=False, help_text="number")
    mean = serializers.FloatField(allow_null=True, required=False, help_text="number")


class GroupEstimateSerializer(serializers.Serializer):
    group = serializers.CharField()
    respondents = serializers.IntegerField()
    questions = QuestionEstimateSerializer(many=True)


class EstimatesSerializer(serializers.Serializer):
    survey = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    respondents = serializers.IntegerField()
    planned_n = serializers.IntegerField()
    confidence = serializers.FloatField()
    epsilon_local_total = serializers.FloatField()
    questions = QuestionEstimateSerializer(many=True)
    group_by = serializers.CharField(required=False)
    groups = GroupEstimateSerializer(many=True, required=False)


class ExportSerializer(serializers.Serializer):
    survey = serializers.CharField()
    designs = serializers.DictField(child=serializers.JSONField())
    rows = serializers.ListField(child=serializers.DictField(child=serializers.JSONField()))


class ExportCSVFormatSerializer(serializers.Serializer):
    encoding = serializers.CharField()
    line_terminator = serializers.CharField()
    text_prefix = serializers.CharField(help_text="Every text cell starts with it; drop it.")
    missing = serializers.CharField(allow_blank=True, help_text="An empty cell: not answered.")
    rule = serializers.CharField()


class ExportColumnSerializer(serializers.Serializer):
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    type = serializers.ChoiceField(choices=["integer", "number", "text"])
    text = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField(), required=False)
    min = serializers.FloatField(required=False, allow_null=True)
    max = serializers.FloatField(required=False, allow_null=True)
    design = serializers.DictField(child=serializers.JSONField(), required=False)
    rrreg = serializers.CharField(required=False, help_text="R's rr package, for yes_no designs.")


class ExportMetadataSerializer(serializers.Serializer):
    survey = serializers.CharField()
    title = serializers.CharField()
    respondents = serializers.IntegerField()
    rows = serializers.CharField()
    csv = ExportCSVFormatSerializer()
    debias = serializers.CharField()
    columns = ExportColumnSerializer(many=True)


# --- Design preview -----------------------------------------------------------------------------


class DesignPreviewRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=Question.Kind.choices, help_text="Only yes_no and choice have a design."
    )
    design = serializers.JSONField(required=False, allow_null=True)
    options = serializers.ListField(child=serializers.CharField(), required=False)
    k = serializers.IntegerField(required=False, min_value=2, help_text="choice, if no options")
    planned_n = serializers.IntegerField(required=False, min_value=1, default=1000)
    prior = serializers.FloatField(required=False, allow_null=True, help_text="Guessed π.")
    confidence = serializers.FloatField(required=False, default=0.95)


class DesignPreviewResponseSerializer(serializers.Serializer):
    epsilon = serializers.FloatField(allow_null=True, help_text="null when ε = ∞.")
    private = serializers.BooleanField()
    design = serializers.JSONField()
    deniability = serializers.FloatField(
        help_text="P(trait | reported yes) at the prior (default 0.1; choice: 1/k)."
    )
    prior = serializers.FloatField()
    planned_n = serializers.IntegerField()
    planned_half_width = serializers.FloatField()
    planned_half_width_direct = serializers.FloatField()
    sample_size_for_5pp = serializers.IntegerField()
    sample_size_direct_for_5pp = serializers.IntegerField()


# --- Invitation check (respondents) -------------------------------------------------------------


class InvitationCheckRequestSerializer(serializers.Serializer):
    token = serializers.CharField(
        max_length=200, help_text="The invitation token, in the body only (never in a URL)."
    )


class InvitationCheckResponseSerializer(serializers.Serializer):
    valid = serializers.BooleanField(
        help_text="True when the token is an unused invitation of this open survey. The check "
        "does not use it up."
    )
