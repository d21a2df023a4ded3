"""A URLconf with a deliberate ownership bug, to prove the permission walk catches one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path

from deniable.urls import urlpatterns as project_patterns
from surveys.models import Survey


@login_required
def leaky_survey_title(request: HttpRequest, slug: str) -> HttpResponse:
    # The bug under test: looks the survey up without filtering on owner=request.user.
    return HttpResponse(get_object_or_404(Survey, slug=slug).title)


urlpatterns = [
    path("surveys/<slug:slug>/title/", leaky_survey_title, name="leaky-survey-title"),
    *project_patterns,
]
