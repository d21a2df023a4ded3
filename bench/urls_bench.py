"""Bench URLconf: every product URL, plus ``bench/baseline/`` (the plain DRF CreateAPIView)."""

from __future__ import annotations

from django.urls import include, path

from bench.baseline_app.views import BaselineCreateView

urlpatterns = [
    path("bench/baseline/", BaselineCreateView.as_view(), name="bench-baseline"),
    path("", include("deniable.urls")),
]
