"""deniable/security.py: the CSP middleware that builds a nonce-less policy once gives the same
headers as django-csp's own, and follows the settings when they change."""

from __future__ import annotations

import pytest
from csp.middleware import CSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from deniable.security import ConstantPolicyCSPMiddleware

HEADERS = ("Content-Security-Policy", "Content-Security-Policy-Report-Only")


def _headers(middleware_class, *, nonce: bool = False, prepare=None) -> dict[str, str]:
    request = RequestFactory().get("/api/v1/surveys/")
    middleware = middleware_class(lambda r: HttpResponse("{}"))
    middleware.process_request(request)
    if nonce:
        str(request.csp_nonce)  # a page that drew its nonce
    response = HttpResponse("{}")
    if prepare:
        prepare(response)
    middleware.process_response(request, response)
    return {h: response[h] for h in HEADERS if h in response}


@pytest.mark.parametrize("nonce", [False, True])
def test_same_headers_as_django_csp(nonce):
    ours = _headers(ConstantPolicyCSPMiddleware, nonce=nonce)
    stock = _headers(CSPMiddleware, nonce=nonce)
    assert "frame-ancestors 'none'" in ours["Content-Security-Policy"]
    if nonce:  # each request its own nonce: compare without it
        assert "'nonce-" in ours["Content-Security-Policy"]
        ours = {h: " ".join(w for w in v.split() if "nonce-" not in w) for h, v in ours.items()}
        stock = {h: " ".join(w for w in v.split() if "nonce-" not in w) for h, v in stock.items()}
    assert ours == stock


def test_a_view_s_own_policy_and_exemption_are_kept():
    def update(response):
        response._csp_update = {"img-src": ["https://example.org"]}

    def exempt(response):
        response._csp_exempt = True

    assert _headers(ConstantPolicyCSPMiddleware, prepare=update) == _headers(
        CSPMiddleware, prepare=update
    )
    assert (
        "https://example.org"
        in _headers(ConstantPolicyCSPMiddleware, prepare=update)["Content-Security-Policy"]
    )
    assert _headers(ConstantPolicyCSPMiddleware, prepare=exempt) == {}


def test_the_policy_follows_the_settings():
    before = _headers(ConstantPolicyCSPMiddleware)
    policy = {"DIRECTIVES": {"default-src": ["'none'"]}}
    with override_settings(
        CONTENT_SECURITY_POLICY=policy, CONTENT_SECURITY_POLICY_REPORT_ONLY=policy
    ):
        changed = _headers(ConstantPolicyCSPMiddleware)
        assert changed == _headers(CSPMiddleware)
        assert changed["Content-Security-Policy-Report-Only"] == "default-src 'none'"
    assert _headers(ConstantPolicyCSPMiddleware) == before


def test_a_nonce_asked_for_after_the_header_is_an_error():
    from csp.exceptions import CSPNonceError

    request = RequestFactory().get("/")
    middleware = ConstantPolicyCSPMiddleware(lambda r: HttpResponse())
    middleware.process_request(request)
    middleware.process_response(request, HttpResponse())
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)
