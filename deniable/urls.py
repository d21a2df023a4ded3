"""Top-level URL configuration.

Each app owns its URL modules: ``surveys.urls`` (pages), ``surveys.api.urls`` and
``privacy.api.urls`` (API v1, DESIGN.md §8).
"""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from deniable.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/v1/docs/",
        # Swagger UI sets inline style attributes; its scripts still load from our origin only.
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    path("api/v1/", include("surveys.api.urls")),
    path("api/v1/", include("privacy.api.urls")),
    path("", include("surveys.urls")),
]
