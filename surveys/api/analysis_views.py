"""API v1 analysis views (docs/analysis.md, docs/api.md): regression and power.

Thin like surveys.api.views: look the survey up (someone else's is a 404), call
surveys.analysis.regression
or dpcore, shape; the negotiated renderer (``deniable.negotiation``) writes JSON or CSV. Group
comparisons are part of GET …/estimates/ (``compare=true``).
"""

from __future__ import annotations

from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.api import json_object_body
from deniable.errors import InvalidInput, refuse_repeated
from deniable.negotiation import FormatNegotiationMixin, attachment
from surveys import inputs, selectors
from surveys.analysis import correlation as correlation_api
from surveys.analysis import power as power_api
from surveys.analysis import regression as analysis
from surveys.analysis import regression_jobs as analysis_jobs
from surveys.analysis import regression_power as regression_power_api
from surveys.analysis.confidence import CONFIDENCE_MESSAGE, confidence_or_none
from surveys.analysis.recommend import design_recommend
from surveys.api.read_views import ERROR_404, ERRORS_400, SLUG


class _CoefficientOut(serializers.Serializer):
    term = serializers.CharField()
    estimate = serializers.FloatField(allow_null=True)
    std_error = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    z = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(allow_null=True)
    odds_ratio = serializers.FloatField(allow_null=True)


class RegressionOut(serializers.Serializer):
    """The regression's JSON body, for the schema (surveys.analysis.regression.regression_body
    shapes it)."""

    survey = serializers.CharField()
    outcome = serializers.CharField()
    design = serializers.DictField(
        allow_null=True, help_text="The outcome's design (null for linear: a direct outcome)."
    )
    family = serializers.CharField(help_text="logistic or linear.")
    n = serializers.IntegerField(help_text="Respondents used in the fit.")
    n_excluded = serializers.IntegerField(
        help_text="Published respondents left out for a missing outcome or predictor."
    )
    reference = serializers.DictField(
        child=serializers.CharField(),
        help_text="Per category predictor, the level its terms compare with: the first option "
        "that has respondents among the fitted rows.",
    )
    dropped_levels = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per category predictor, the options with no fitted respondents (no term).",
    )
    log_likelihood = serializers.FloatField()
    converged = serializers.BooleanField()
    iterations = serializers.IntegerField()
    confidence = serializers.FloatField()
    warnings = serializers.ListField(child=serializers.CharField())
    coefficients = _CoefficientOut(many=True)
    sigma = serializers.FloatField(
        required=False, help_text="linear: the residual standard deviation σ (ML)."
    )
    sigma_std_error = serializers.FloatField(required=False, allow_null=True)
    latent = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="With randomized predictors: per randomized predictor, its key, design and "
        "estimated prevalence of its trait.",
    )


class RegressionView(FormatNegotiationMixin, APIView):
    @extend_schema(
        parameters=[
            SLUG,
            OpenApiParameter(
                "outcome",
                OpenApiTypes.STR,
                description="A yes_no question (logistic) or a number question (linear).",
            ),
            OpenApiParameter(
                "predictors",
                OpenApiTypes.STR,
                description="Comma-separated category/number keys, and up to 4 randomized "
                "yes/no keys (each enters as its latent trait).",
            ),
            OpenApiParameter(
                "family", OpenApiTypes.STR, enum=["logistic", "linear"], default="logistic"
            ),
            OpenApiParameter("confidence", OpenApiTypes.DOUBLE, default=0.95),
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"]),
        ],
        responses={
            (200, "application/json"): RegressionOut,
            (200, "text/csv"): OpenApiTypes.STR,
            202: OpenApiTypes.OBJECT,
            400: ERRORS_400,
            404: ERROR_404,
        },
        tags=["analysis"],
        description=(
            "Maximum-likelihood logistic regression of the latent trait of a yes_no question on "
            "category (dummy coded against the reference: the first option with respondents "
            "among the fitted rows; options without get no term, in dropped_levels) and number "
            "predictors, through "
            "the outcome's design: P(report yes) = c·expit(xβ) + d. family=linear: a number "
            "outcome, y = xβ + tγ + ε, each randomized yes/no predictor entering as its latent "
            "trait t (maximum likelihood over its design, as RRreg's RRlin). A randomized yes/no "
            "predictor of a logistic fit enters the same way. Above "
            "DENIABLE_REGRESSION_SYNC_LIMIT respondents: 202 with progress; poll the same URL."
        ),
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="view")
        fmt = self.negotiated_format(request)
        query = inputs.regression_query(request.query_params)
        status, body = analysis_jobs.regression_or_job(
            survey=survey, query=query, url=request.get_full_path()
        )
        if status != 200:  # 202: a background fit under way (poll this URL); 503: it failed
            return Response(body, status=status)
        if fmt == "csv":
            name = f"{slugify(slug)}-regression-{slugify(body['outcome'])}.csv"
            return attachment(Response(analysis.regression_table(body)), name)
        return Response(body)


class CorrelationView(APIView):
    @extend_schema(
        parameters=[
            SLUG,
            OpenApiParameter("x", OpenApiTypes.STR, description="A yes_no or number question."),
            OpenApiParameter("y", OpenApiTypes.STR, description="A yes_no or number question."),
            OpenApiParameter("confidence", OpenApiTypes.DOUBLE, default=0.95),
        ],
        responses={200: OpenApiTypes.OBJECT, 400: ERRORS_400, 404: ERROR_404},
        tags=["analysis"],
        description=(
            "Pearson correlation of the true traits behind randomized yes_no reports (with a "
            "number question or another yes_no), corrected for the designs' misclassification "
            "(Fox & Tracy 1984; RRreg's RRcor), with a delta-method SE."
        ),
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="view")
        refuse_repeated(request.query_params, ("x", "y", "confidence"))
        confidence = confidence_or_none(request.query_params.get("confidence", "0.95"))
        if confidence is None:
            raise InvalidInput.single("confidence", CONFIDENCE_MESSAGE)
        body = correlation_api.correlation_body(
            survey,
            x=request.query_params.get("x"),
            y=request.query_params.get("y"),
            confidence=confidence,
        )
        return Response(body)


class PowerView(APIView):
    @extend_schema(
        request=inputs.PowerRequestSerializer,
        responses={200: OpenApiTypes.OBJECT, 400: ERRORS_400},
        tags=["designs"],
        description=(
            "Power or sample size of a one-sample (against pi0) or two-group (pi0 vs pi1) test "
            "of prevalence under a randomized design: method normal (the normal approximation, "
            "default) or exact (binomial report counts; the exact n is the smallest from which "
            "the exact power stays at the target up to search_bound)."
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object_body(request)
        answer = power_api.power_answer(inputs.power_request(body))
        # The answer is the request object with the missing figure (and the defaults) filled in.
        return Response({**body, **answer})


class RegressionPowerView(APIView):
    @extend_schema(
        request=inputs.RegressionPowerRequestSerializer,
        responses={200: OpenApiTypes.OBJECT, 400: ERRORS_400},
        tags=["designs"],
        description=(
            "Power or sample size of the Wald test of a binary predictor's odds ratio on a "
            "randomized yes/no outcome (the regression's model P(yes) = c·expit(β₀ + β₁x) + d), "
            "from the expected Fisher information at the hypothesised parameters."
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object_body(request)
        wanted = inputs.regression_power_request(body)
        return Response({**body, **regression_power_api.regression_power_answer(wanted)})


class RecommendView(APIView):
    @extend_schema(
        request=inputs.RecommendRequestSerializer,
        responses={200: OpenApiTypes.OBJECT, 400: ERRORS_400},
        tags=["designs"],
        description=(
            "The designs of a k-option question (k-RR, OUE) at local ε, each with one option's "
            "variance and interval half-width for n respondents at uniform frequencies (and for "
            "a rare option); the smallest variance is recommended."
        ),
    )
    def post(self, request: Request) -> Response:
        body = json_object_body(request)
        return Response(design_recommend(request=inputs.recommend_request(body)))
