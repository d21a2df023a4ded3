"""Page URLs: the respondent form under /s/, the researcher pages under /surveys/ (the account
pages under /accounts/ are accounts.urls)."""

from __future__ import annotations

from django.urls import path

from surveys import researcher_pages, views

urlpatterns = [
    path("", views.home, name="home"),
    # Respondents
    path("s/<slug:slug>/", views.respond, name="respond"),
    path("s/<slug:slug>/submit/", views.respond_submit, name="respond-submit"),
    path("s/<slug:slug>/thanks/", views.respond_thanks, name="respond-thanks"),
    # Researchers
    path("surveys/", researcher_pages.survey_list, name="researcher-home"),
    path("surveys/new/", researcher_pages.survey_builder, name="survey-new"),
    path("surveys/<slug:slug>/", researcher_pages.survey_detail, name="survey-detail"),
    path("surveys/<slug:slug>/edit/", researcher_pages.survey_builder, name="survey-edit"),
    path(
        "surveys/<slug:slug>/open/", views.survey_transition, {"action": "open"}, name="survey-open"
    ),
    path(
        "surveys/<slug:slug>/close/",
        views.survey_transition,
        {"action": "close"},
        name="survey-close",
    ),
    path("surveys/<slug:slug>/invitations/", views.survey_invitations, name="survey-invitations"),
    path(
        "surveys/<slug:slug>/invitations/revoke/",
        views.survey_invitations_revoke,
        name="survey-invitations-revoke",
    ),
]
