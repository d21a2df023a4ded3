"""``GET /api/v1/audit/``: the site's audit log for staff (docs/api.md#audit)."""

from __future__ import annotations

from django.urls import path

from audit import views

urlpatterns = [path("audit/", views.SiteAuditView.as_view(), name="api-audit")]
