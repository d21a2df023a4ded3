"""Reads: surveys for respondents and owners, counts and debiased estimates.

Selectors return data (models, querysets, frozen dataclasses), never response bodies: the API's
output serializers and renderers shape them (``surveys.api.estimates``), the pages' presenters
draw them (``surveys.pages.charts``). The modules:

* ``surveys`` — surveys as respondents and researchers see them, and the permission resolver
  (``survey_get_for_user``, docs/teams.md);
* ``sql`` — the vendor-specific SQL of the tally reads;
* ``counts`` — report counts per cell (releases and estimates start there);
* ``estimates`` — debiased estimates as typed values.

The per-process survey cache of the submission path is ``surveys.collection.public_survey_cache``.
"""

from __future__ import annotations

from surveys.selectors.counts import NumberSums, SurveyCounts, survey_counts
from surveys.selectors.estimates import (
    SurveyEstimates,
    survey_estimates,
    validate_confidence,
)
from surveys.selectors.surveys import (
    OWNER,
    Need,
    estimate_batch,
    survey_collaborators,
    survey_get_for_user,
    survey_get_public,
    survey_list_for_user,
    survey_list_sorted,
    survey_require,
    survey_respondent_count,
    survey_role,
)

__all__ = [
    "OWNER",
    "Need",
    "NumberSums",
    "SurveyCounts",
    "SurveyEstimates",
    "estimate_batch",
    "survey_collaborators",
    "survey_counts",
    "survey_estimates",
    "survey_get_for_user",
    "survey_get_public",
    "survey_list_for_user",
    "survey_list_sorted",
    "survey_require",
    "survey_respondent_count",
    "survey_role",
    "validate_confidence",
]
