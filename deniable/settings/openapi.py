"""drf-spectacular's settings (base.py's ``SPECTACULAR_SETTINGS``): the schema's title, version,
hooks and the enum names the API contract fixes (docs/api.md)."""

from __future__ import annotations

from typing import Any

OPENAPI_SETTINGS: dict[str, Any] = {
    "TITLE": "Deniable API",
    "DESCRIPTION": "Randomized-response surveys with local and central differential privacy.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI assets are served from our own static files, not a CDN (CSP, offline installs).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # 401/403 on authenticated operations, 413 on those with a body (deniable/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "deniable.openapi.add_common_error_responses",
    ],
    # Stable enum component names (several serializers share field names such as "status").
    "ENUM_NAME_OVERRIDES": {
        "SurveyStatusEnum": "surveys.models.Survey.Status",
        "SurveyAccessEnum": "surveys.models.Survey.Access",
        "QuestionKindEnum": "surveys.models.Question.Kind",
        # yes_no | choice: the design preview's and the power request's "kind" (one name).
        "RandomizedKindEnum": "surveys.models.Question.RANDOMIZED_KINDS",
        # yes_no | choice: the power calculator's "kind" (multi options are yes/no there).
        "PowerKindEnum": "surveys.inputs.analysis.POWER_KINDS",
        "RandomizerEnum": "surveys.models.Submission.Randomizer",
        "ReleaseStatusEnum": "privacy.models.Release.Status",
        "ReleaseMechanismEnum": "privacy.models.Release.Mechanism",
        # median | quantile | mode: a selection release's statistic (request and release alike).
        "ReleaseStatisticEnum": "privacy.models.Release.Statistic",
        "CollaboratorRoleEnum": "surveys.models.Collaborator.Role",
        # owner | editor | viewer: the requester's role on a survey (docs/teams.md#roles).
        "SurveyRoleEnum": "surveys.api.serializers.SURVEY_ROLES",
        # others | everywhere: what POST auth/sessions/sign-out/ ends (docs/api.md#sessions).
        "SignOutScopeEnum": "accounts.inputs.SIGN_OUT_SCOPES",
    },
}
