"""One content negotiation (deniable/negotiation.py): ``?format=csv`` and ``Accept: text/csv``
behave the same, an unknown format is a 400 naming ``format``, errors are JSON."""

from __future__ import annotations

import json

import pytest
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from deniable.errors import NotFound
from deniable.negotiation import FormatNegotiationMixin, attachment, wants_download
from deniable.renderers import CSVRenderer, CSVTable, FiniteJSONRenderer

factory = APIRequestFactory()


class _Probe(FormatNegotiationMixin, APIView):
    """A minimal view: JSON {"x": NaN} or a one-row CSV; ?missing=1 raises a 404."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        if request.query_params.get("missing"):
            raise NotFound("No such thing.")
        if self.negotiated_format(request) == "csv":
            return Response(CSVTable(["x"], [[float("nan")], [1.5]]))
        return Response({"x": float("nan"), "y": 1.5})


class _CSVFirst(_Probe):
    renderer_classes = [CSVRenderer, FiniteJSONRenderer]


def _get(view, query: str = "", accept: str | None = None):
    extra = {"HTTP_ACCEPT": accept} if accept else {}
    response = view.as_view()(factory.get(f"/probe/{query}", **extra))
    response.render()
    return response


@pytest.mark.parametrize("view", [_Probe, _CSVFirst])
def test_format_csv_and_accept_csv_give_the_same_response(view):
    by_query = _get(view, "?format=csv")
    by_header = _get(view, accept="text/csv")
    for r in (by_query, by_header):
        assert r.status_code == 200
        assert r["Content-Type"] == "text/csv; charset=utf-8"
    # NaN is an empty cell (a row of one empty cell is written "" so it is not a blank line).
    assert by_query.content == by_header.content == b'x\r\n""\r\n1.5\r\n'


@pytest.mark.parametrize("view", [_Probe, _CSVFirst])
def test_format_json_and_accept_json_give_the_same_response(view):
    by_query = _get(view, "?format=json")
    by_header = _get(view, accept="application/json")
    for r in (by_query, by_header):
        assert r.status_code == 200
        assert r["Content-Type"] == "application/json"
    assert by_query.content == by_header.content
    assert json.loads(by_query.content) == {"x": None, "y": 1.5}  # NaN: null


def test_the_first_renderer_is_the_default():
    assert _get(_Probe)["Content-Type"] == "application/json"
    assert _get(_CSVFirst)["Content-Type"].startswith("text/csv")
    assert _get(_Probe, accept="*/*")["Content-Type"] == "application/json"


@pytest.mark.parametrize("view", [_Probe, _CSVFirst])
def test_an_accept_nothing_matches_falls_back_to_json(view):
    r = _get(view, accept="application/xml")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"


@pytest.mark.parametrize("view", [_Probe, _CSVFirst])
@pytest.mark.parametrize("fmt", ["xml", "CSV", "html", ""])
def test_an_unknown_format_is_a_json_400_naming_format(view, fmt):
    r = _get(view, f"?format={fmt}")
    if fmt == "":  # an empty ?format= is no format at all
        assert r.status_code == 200
        return
    assert r.status_code == 400
    assert r["Content-Type"] == "application/json"
    assert json.loads(r.content)["errors"] == {"format": ["One of: json, csv."]}


@pytest.mark.parametrize("how", [{"query": "?missing=1&format=csv"}, {"query": "?missing=1"}])
def test_errors_are_json_even_when_csv_is_asked_for(how):
    r = _get(_Probe, how["query"], accept="text/csv")
    assert r.status_code == 404
    assert r["Content-Type"] == "application/json"
    assert "error" in json.loads(r.content)


def test_download_and_attachment_helpers():
    request = Request(factory.get("/probe/?download=1"))
    assert wants_download(request)
    assert not wants_download(Request(factory.get("/probe/?download=0")))
    response = attachment(Response({}), "a.json")
    assert response["Content-Disposition"] == 'attachment; filename="a.json"'
