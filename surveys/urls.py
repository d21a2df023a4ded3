"""Page URLs: the respondent form under /s/, the researcher pages under /surveys/ (the account
pages under /accounts/ are accounts.urls)."""

from __future__ import annotations

from django.urls import path

from surveys import audit_views
from surveys.pages import dashboard as dashboard_pages
from surveys.pages import invitation_pages, views
from surveys.pages import management as management_pages
from surveys.pages import offline as offline_pages
from surveys.pages import researcher as researcher_pages

urlpatterns = [
    path("", views.home, name="home"),
    # Respondents
    path("s/<slug:slug>/", views.respond, name="respond"),
    # Offline answering: the worker (scope /s/, never wider) and each survey's manifest.
    path("s/sw.js", offline_pages.respond_worker, name="respond-worker"),
    path(
        "s/<slug:slug>/manifest.webmanifest",
        offline_pages.respond_manifest,
        name="respond-manifest",
    ),
    path("s/<slug:slug>/submit/", views.respond_submit, name="respond-submit"),
    path("s/<slug:slug>/thanks/", views.respond_thanks, name="respond-thanks"),
    # Researchers
    path("surveys/", researcher_pages.survey_list, name="researcher-home"),
    path("surveys/new/", researcher_pages.survey_builder, name="survey-new"),
    # Before surveys/<slug>/: "import" is a reserved slug.
    path("surveys/import/", management_pages.survey_import_page, name="survey-import"),
    # A survey's pages, one per section (surveys.pages.dashboard.SECTIONS).
    path("surveys/<slug:slug>/", dashboard_pages.survey_section, name="survey-detail"),
    path(
        "surveys/<slug:slug>/results/",
        dashboard_pages.survey_section,
        {"section": "results"},
        name="survey-results",
    ),
    path(
        "surveys/<slug:slug>/analysis/",
        dashboard_pages.survey_section,
        {"section": "analysis"},
        name="survey-analysis",
    ),
    path(
        "surveys/<slug:slug>/releases/",
        dashboard_pages.survey_section,
        {"section": "releases"},
        name="survey-releases",
    ),
    path(
        "surveys/<slug:slug>/sharing/",
        dashboard_pages.survey_section,
        {"section": "sharing"},
        name="survey-sharing",
    ),
    path(
        "surveys/<slug:slug>/population-shares/",
        dashboard_pages.survey_population_shares_page,
        name="survey-population-shares",
    ),
    path("surveys/<slug:slug>/edit/", researcher_pages.survey_builder, name="survey-edit"),
    path(
        "surveys/<slug:slug>/open/",
        invitation_pages.survey_transition,
        {"action": "open"},
        name="survey-open",
    ),
    path(
        "surveys/<slug:slug>/close/",
        invitation_pages.survey_transition,
        {"action": "close"},
        name="survey-close",
    ),
    path("surveys/<slug:slug>/preview/", management_pages.survey_preview, name="survey-preview"),
    path(
        "surveys/<slug:slug>/duplicate/",
        management_pages.survey_duplicate_page,
        name="survey-duplicate",
    ),
    path(
        "surveys/<slug:slug>/archive/",
        management_pages.survey_archive_page,
        {"action": "archive"},
        name="survey-archive",
    ),
    path(
        "surveys/<slug:slug>/unarchive/",
        management_pages.survey_archive_page,
        {"action": "unarchive"},
        name="survey-unarchive",
    ),
    path("surveys/<slug:slug>/delete/", management_pages.survey_delete_page, name="survey-delete"),
    path("surveys/<slug:slug>/audit/", audit_views.survey_audit_page, name="survey-audit"),
    path("surveys/<slug:slug>/slug/", management_pages.survey_slug_page, name="survey-slug"),
    path("surveys/<slug:slug>/share/", management_pages.survey_share_page, name="survey-share"),
    path(
        "surveys/<slug:slug>/unshare/", management_pages.survey_unshare_page, name="survey-unshare"
    ),
    path(
        "surveys/<slug:slug>/invitations/",
        invitation_pages.survey_invitations,
        name="survey-invitations",
    ),
    path(
        "surveys/<slug:slug>/invitations/revoke/",
        invitation_pages.survey_invitations_revoke,
        name="survey-invitations-revoke",
    ),
]
