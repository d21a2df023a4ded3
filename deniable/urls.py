"""Top-level URL configuration.

Each app owns its URL modules: ``accounts.urls`` and ``surveys.urls`` (pages),
``accounts.api.urls``, ``surveys.api.urls`` and ``privacy.api.urls`` (API v1, docs/api.md).
"""

from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from deniable.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/v1/docs/",
        # Swagger UI sets inline style attributes; its scripts still load from our origin only.
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    path("api/v1/", include("accounts.api.urls")),
    path("api/v1/", include("surveys.api.urls")),
    path("api/v1/", include("privacy.api.urls")),
    path("api/v1/", include("audit.api_urls")),
    path("", include("audit.urls")),
    path("", include("accounts.urls")),
    path("", include("surveys.urls")),
]
# Where the admin lives is configuration (DJANGO_ADMIN_URL); production mounts none by default.
if settings.ADMIN_URL:
    urlpatterns.insert(1, path(settings.ADMIN_URL.strip("/") + "/", admin.site.urls))

# Unmatched URLs under /api/ get the API's JSON error body (documented 404), pages Django's own.
handler404 = "deniable.api_errors.page_not_found"
