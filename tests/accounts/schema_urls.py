"""Only the accounts API, so its OpenAPI document can be checked for warnings on its own."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [path("api/v1/", include("accounts.api.urls"))]
