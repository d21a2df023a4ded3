"""API serializers: response representations (the field names of docs/api.md).

Request bodies are validated by the input serializers of :mod:`surveys.inputs` — the one
validator, shared with the pages, errors named like ``questions[0].design.p_truth``.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from surveys import designs
from surveys.models import Question, Survey
from surveys.selectors import survey_respondent_count

# --- Errors -------------------------------------------------------------------------------------


class FieldErrorsSerializer(serializers.Serializer):
    # The API's field is named "errors" (docs/api.md#errors). DRF's metaclass moves declared
    # fields out of the class, so Serializer.errors is untouched; the stubs cannot know that.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Messages per field, e.g. {"answers.q1": ["Must be a boolean …"]}.',
    )


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="A machine-readable code, e.g. survey_closed.")
    detail = serializers.CharField()


# --- Auth ---------------------------------------------------------------------------------------


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField()


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


class SubmissionResponseSerializer(serializers.Serializer):
    submission_id = serializers.UUIDField()
    status = serializers.CharField(help_text='"accepted" (201) or "duplicate" (200).')


# --- Estimates ----------------------------------------------------------------------------------


class OptionEstimateSerializer(serializers.Serializer):
    option = serializers.CharField()
    reported = serializers.IntegerField(required=False, help_text="choice; multi: YES reports")
    n = serializers.IntegerField(required=False, help_text="multi: answers")
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
    options = OptionEstimateSerializer(
        many=True, required=False, help_text="choice, category, multi (a yes/no per option)"
    )
    epsilon_per_option = serializers.FloatField(
        allow_null=True, required=False, help_text="multi: each option's ε (epsilon is the sum)"
    )
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


class InvitationCheckResponseSerializer(serializers.Serializer):
    valid = serializers.BooleanField(
        help_text="True when the token is an unused invitation of this open survey. The check "
        "does not use it up."
    )
