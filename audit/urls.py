"""The site's audit log page for staff (docs/accounts.md#audit); the API is audit.api_urls."""

from __future__ import annotations

from django.urls import path

from audit import views

urlpatterns = [path("audit/", views.site_audit_page, name="site-audit")]
