"""Input serializers: THE validator of every survey write — the JSON API, the server-rendered
pages, management commands and tests all go through them. Each returns a frozen spec
(:mod:`surveys.definitions.specs`) that the services take as typed keyword arguments."""

from surveys.inputs.access import (
    InvitationCheckRequestSerializer,
    invitation_token,
)
from surveys.inputs.analysis import (
    PowerRequestSerializer,
    RecommendRequestSerializer,
    RegressionPowerRequestSerializer,
    RegressionQuerySerializer,
    power_request,
    recommend_request,
    regression_power_request,
    regression_query,
)
from surveys.inputs.invitations import InvitationRequestSerializer, invitation_request
from surveys.inputs.management import (
    ORDERINGS,
    CollaboratorInSerializer,
    CollaboratorSpec,
    SurveyDeleteSerializer,
    SurveyListQuery,
    SurveyListQuerySerializer,
    collaborator_spec,
    survey_list_query,
)
from surveys.inputs.previews import DesignPreviewRequestSerializer, design_preview_request
from surveys.inputs.responses import (
    SubmissionRequestSerializer,
    SubmissionSchema,
    answers_clean,
    schema_of,
    submission_spec,
)
from surveys.inputs.surveys import (
    QuestionInSerializer,
    SurveyBudgetInSerializer,
    SurveyInSerializer,
    SurveyPatchSerializer,
    design_spec,
    survey_changes,
    survey_spec,
)

__all__ = [
    "ORDERINGS",
    "CollaboratorInSerializer",
    "CollaboratorSpec",
    "DesignPreviewRequestSerializer",
    "InvitationCheckRequestSerializer",
    "InvitationRequestSerializer",
    "PowerRequestSerializer",
    "QuestionInSerializer",
    "RecommendRequestSerializer",
    "RegressionPowerRequestSerializer",
    "RegressionQuerySerializer",
    "SubmissionRequestSerializer",
    "SubmissionSchema",
    "SurveyBudgetInSerializer",
    "SurveyDeleteSerializer",
    "SurveyInSerializer",
    "SurveyListQuery",
    "SurveyListQuerySerializer",
    "SurveyPatchSerializer",
    "answers_clean",
    "collaborator_spec",
    "design_preview_request",
    "design_spec",
    "invitation_request",
    "invitation_token",
    "power_request",
    "recommend_request",
    "regression_power_request",
    "regression_query",
    "schema_of",
    "submission_spec",
    "survey_changes",
    "survey_list_query",
    "survey_spec",
]
