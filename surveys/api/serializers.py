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

# The error bodies, shared by every app's API (re-exported: views and privacy use them from here).
from deniable.api_schema import ErrorSerializer as ErrorSerializer
from deniable.api_schema import FieldErrorsSerializer as FieldErrorsSerializer
from surveys.definitions import question_designs as designs
from surveys.kinds import column_types
from surveys.models import Collaborator, Question, Survey
from surveys.selectors import survey_respondent_count
from surveys.selectors.summaries import budget_remaining

# --- Surveys (responses) ------------------------------------------------------------------------


class ShowIfOutSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="An earlier category question.")

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {"key": instance["key"], "in": list(instance["in"])}


ShowIfOutSerializer._declared_fields["in"] = serializers.ListField(
    child=serializers.CharField(), help_text="The answers to it for which this one is shown."
)


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
    # A declared field (DRF moves it out of the class; Field.required is untouched).
    required = serializers.BooleanField()  # type: ignore[assignment]
    show_if = ShowIfOutSerializer(allow_null=True)
    ordered = serializers.BooleanField()
    integer = serializers.BooleanField(help_text="number: whole numbers only.")

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


# The requester's role on a survey (docs/teams.md#roles): the owner, or a collaborator's role.
SURVEY_ROLES = [("owner", "Owner"), *Collaborator.Role.choices]


class CollaboratorOutSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Collaborator.Role.choices)
    added_on = serializers.DateField()


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
    languages = serializers.ListField(
        child=serializers.CharField(),
        help_text="Respondent-facing languages, the default first (empty: the site's default).",
    )
    translations = serializers.DictField(
        help_text='{lang: {"title","description","questions":{key:{"text","options":{…}}}}}'
    )
    links = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username", help_text="The owner's username.")
    role = serializers.SerializerMethodField()
    budget_left = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ChoiceField(choices=SURVEY_ROLES, allow_null=True))
    def get_role(self, survey: Survey) -> str | None:
        """The requester's role (docs/teams.md#roles)."""
        return getattr(survey, "role", None)

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_budget_left(self, survey: Survey) -> float:
        """ε remaining of the central-DP budget (GET …/budget/ has the details)."""
        left = getattr(survey, "budget_left", None)
        if left is None:
            left = budget_remaining([survey])[survey.pk]
        return float(left)

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
    count = serializers.IntegerField(required=False, help_text="category questions")
    share = serializers.FloatField(allow_null=True, required=False, help_text="category questions")


class MeanScoreSchemaSerializer(serializers.Serializer):
    estimate = serializers.FloatField(allow_null=True, help_text="Clipped to [min, max].")
    estimate_unclipped = serializers.FloatField(allow_null=True, help_text="Unbiased.")
    std_error = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    min = serializers.IntegerField()
    max = serializers.IntegerField()


class QuestionEstimateSerializer(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    epsilon = serializers.FloatField(allow_null=True)
    design = serializers.JSONField(allow_null=True)
    n = serializers.IntegerField()
    reported_yes = serializers.IntegerField(required=False, help_text="yes/no questions")
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
    min = serializers.FloatField(required=False, help_text="number questions")
    max = serializers.FloatField(required=False, help_text="number questions")
    mean = serializers.FloatField(allow_null=True, required=False, help_text="number questions")
    mean_score = MeanScoreSchemaSerializer(
        required=False,
        help_text="ordered choice only: the debiased mean score, options scored 1..k in order "
        "(docs/formulas.md#mean-score).",
    )


class GroupEstimateSerializer(serializers.Serializer):
    group = serializers.CharField()
    suppressed = serializers.BooleanField(
        help_text="Fewer than k (estimate_batch) published respondents: no figures are given "
        "(respondents null, questions empty), so no group moves by one respondent's report."
    )
    respondents = serializers.IntegerField(allow_null=True)
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
    poststratified_by = serializers.CharField(required=False)
    shares = serializers.DictField(child=serializers.FloatField(), required=False)


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
    type = serializers.ChoiceField(choices=column_types())
    text = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField(), required=False)
    min = serializers.FloatField(required=False, allow_null=True)
    max = serializers.FloatField(required=False, allow_null=True)
    design = serializers.DictField(child=serializers.JSONField(), required=False)
    rrreg = serializers.CharField(required=False, help_text="R's rr package, for yes_no designs.")
    required = serializers.BooleanField(  # type: ignore[assignment]  # a declared field
        required=False, help_text="false: an empty cell may be an unanswered optional question."
    )
    show_if = ShowIfOutSerializer(
        required=False, help_text="Asked only after these category answers; else the cell is empty."
    )
    ordered = serializers.BooleanField(
        required=False, help_text="choice: options scored 1..k in their order."
    )
    integer = serializers.BooleanField(required=False, help_text="number: whole numbers only.")


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
    revealing_report = serializers.BooleanField(
        required=False,
        help_text="yes/no designs: the report that raises the posterior most (true: yes or "
        "SAME; false: no or DIFFERENT, as for a crosswise design with p < 0.5).",
    )
    revealing_deniability = serializers.FloatField(
        required=False, help_text="P(trait | the revealing report) at the prior."
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
