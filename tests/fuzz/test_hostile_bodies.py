"""Hypothesis against every API operation with hostile *raw* bodies and query strings (issue 11 §7).

The operations come from the project's own OpenAPI document (so a new endpoint is fuzzed without
editing this file); each gets bodies that the schema-driven fuzzer (``test_schemathesis.py``)
cannot send, written as raw bytes:

* nesting: ``[``/``{"a":`` up to 3,000 levels deep, bare or inside a documented field;
* strings with NUL (``\\u0000``) or a lone surrogate (``\\ud800``), as values and as keys;
* bytes that are not UTF-8 (random, Latin-1, UTF-16) and unknown or non-text charsets;
* huge, overflowing, subnormal and negative-zero numbers (``1e400``, ``9…9`` (400 digits),
  ``5e-324``, ``-0.0``) in every documented field, and in the nested fields that matter
  (a number question's bounds, a survey's budget);

and GET operations get the same values in every documented query parameter. Contract: never a
5xx; every 4xx is JSON, a 400 in the ``{"errors": {field: [messages]}}`` shape; a refused
submission stores nothing. CI runs this module on SQLite and on PostgreSQL (where NUL and
surrogates were database errors); it takes ~15 s per backend.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from django.core.cache import cache
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from surveys.models import Submission, Tally
from testsupport import factories

pytestmark = [pytest.mark.django_db, pytest.mark.both_backends]

QUESTIONS: list[dict[str, Any]] = [
    {"key": "coin", "text": "Coin?", "kind": "yes_no"},
    {"key": "party", "text": "Party?", "kind": "choice", "options": ["a", "b", "c"]},
    {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south"]},
    {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
]
ANSWERS = {"coin": True, "party": "a", "region": "north", "hours": 3}


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _operations() -> list[tuple[str, str, list[str], list[str]]]:
    """(method, path template, body field names, query parameter names) for every operation."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    out = []
    for path, methods in schema["paths"].items():
        for method, op in methods.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            fields: list[str] = []
            content = (op.get("requestBody") or {}).get("content", {})
            body_schema = content.get("application/json", {}).get("schema")
            if body_schema:
                fields = sorted(_resolve(schema, body_schema).get("properties", {}))
            query = [p["name"] for p in op.get("parameters", []) if p.get("in") == "query"]
            out.append((method.upper(), path, fields, query))
    return out


OPERATIONS = _operations()

NUMBERS = [
    "1e308", "-1.7976931348623157e308", "1e400", "-1e400", "9" * 400, "-" + "9" * 400,
    "5e-324", "-5e-324", "2.2250738585072014e-308", "1e-400", "-0.0", "-0", "0",
    "4503599627370497", "18446744073709551617", "0.5", "1e-3", "1e-6",
]  # fmt: skip
STRINGS = [
    '"a\\u0000b"', '"\\u0000"', '"\\ud800"', '"x\\udfffy"', '"\\ud83d\\ude00"',
    '"' + "x" * 5000 + '"', '""', '"é∞\\u202e"', '"2024-13-45T00:00:00"',
    '"9999-12-31T23:59:59-23:59"', '"NaN"', '"1e400"',
]  # fmt: skip
OTHER = ["true", "false", "null", "[]", "{}", '{"\\u0000": 1}', '{"\\ud800": 1}', "[1, [2, [3]]]"]


@st.composite
def nested(draw: st.DrawFn) -> str:
    depth = draw(st.one_of(st.integers(1, 40), st.integers(900, 3000)), label="depth")
    opener = draw(st.sampled_from(["[", '{"a":']), label="opener")
    closer = "]" if opener == "[" else "}"
    return opener * depth + draw(st.sampled_from(["1", "null", '"x"'])) + closer * depth


values = st.one_of(
    st.sampled_from(NUMBERS), st.sampled_from(STRINGS), st.sampled_from(OTHER), nested()
)


def _targeted(field: str, value: str) -> str | None:
    """A hostile value where it matters most: inside the nested shapes the services read."""
    if field == "questions":
        return (
            '[{"key": "n", "text": "N", "kind": "number", "min": ' + value + ', "max": 1},'
            ' {"key": "c", "text": '
            + value
            + ', "kind": "choice", "options": ["a", '
            + value
            + '], "design": {"name": "k_rr", "epsilon": '
            + value
            + "}}]"
        )
    if field == "budget":
        return '{"epsilon": ' + value + ', "delta": ' + value + "}"
    if field == "answers":
        return '{"coin": true, "party": "a", "region": "north", "hours": ' + value + "}"
    if field == "design":
        return '{"name": "forced_response", "p_truth": 0.5, "p_yes": ' + value + ', "p_no": 0.25}'
    return None


@st.composite
def bodies(draw: st.DrawFn, fields: list[str]) -> tuple[bytes, str]:
    """(raw body, Content-Type)."""
    kind = draw(st.sampled_from(["fields", "fields", "nested", "bytes", "charset"]), label="kind")
    content_type = "application/json"
    if kind == "nested":
        return draw(nested()).encode(), content_type
    if kind == "bytes":
        raw = draw(
            st.one_of(
                st.binary(max_size=200),
                st.just('{"title": "é", "username": "é"}'.encode("latin-1")),
                st.just('{"title": "x"}'.encode("utf-16")),
                st.just(b'{"title": "\xed\xa0\x80"}'),  # a UTF-8-encoded surrogate: invalid
            ),
            label="bytes",
        )
        return raw, content_type
    if kind == "charset":
        charset = draw(st.sampled_from(["latin-1", "utf-16", "bz2_codec", "rot13", "nope"]))
        return '{"title": "é\\u0000"}'.encode("latin-1"), f"application/json; charset={charset}"
    names = fields or ["title", "answers", "username"]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
    parts = []
    for name in chosen:
        value = draw(values, label=name)
        if draw(st.booleans(), label=f"target {name}"):
            value = _targeted(name, value) or value
        parts.append(f'"{name}": {value}')
    return ("{" + ", ".join(parts) + "}").encode(), content_type


@pytest.fixture
def world(db: None, settings: Any) -> Iterator[dict[str, Any]]:
    cache.clear()
    settings.DENIABLE_MAX_BUDGET_EPSILON = 1e6  # room for every fuzzed release
    owner = factories.make_user("rawfuzz", "pw-rawfuzz-123")
    token = factories.make_api_token(owner)

    def survey(*, open_: bool = False, **extra: Any) -> Any:
        data = {"title": "Raw", "questions": QUESTIONS, "budget": {"epsilon": 1e6}, **extra}
        return factories.make_survey(owner, data, open_=open_)

    opened = survey(open_=True)
    factories.submit_many(opened, 5, lambda _: ANSWERS)
    release = factories.make_release(opened, owner, {"mechanism": "laplace", "epsilon": 1.0})
    invite = survey(open_=True, access="invite")
    yield {
        "token": token,
        "slugs": [opened.slug, survey().slug, invite.slug],
        "release": str(release.pk),
    }
    cache.clear()


RAW = settings(
    max_examples=15,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _check(response: Any, what: Any) -> None:
    assert response.status_code < 500, (what, response.status_code, response.content[:300])
    if (response.status_code >= 400 and response.status_code != 404) or (
        response.status_code == 404 and response.get("Content-Type", "").startswith("application")
    ):
        body = response.json()
        if response.status_code == 400:
            errors = body["errors"]
            assert errors and all(
                isinstance(k, str) and k and v and all(isinstance(m, str) for m in v)
                for k, v in errors.items()
            ), (what, body)
        else:
            assert "error" in body or "errors" in body, (what, body)


def _url(template: str, world: dict[str, Any], index: int) -> str:
    return template.replace("{slug}", world["slugs"][index % 3]).replace(
        "{release_id}", world["release"]
    )


def _one(world: dict[str, Any], op: tuple[str, str, list[str], list[str]], data: Any) -> None:
    method, path, fields, query = op
    cache.clear()  # the respondent rate limit is not what this test is about
    client = Client(HTTP_AUTHORIZATION=f"Token {world['token']}")
    url = _url(path, world, data.draw(st.integers(0, 2), label=f"{path} survey"))
    before = (Submission.objects.count(), Tally.objects.count())
    if method in ("POST", "PUT", "PATCH"):
        raw, content_type = data.draw(bodies(fields), label=f"{method} {path}")
        response = client.generic(method, url, raw, content_type=content_type)
        _check(response, (method, url, raw[:200], content_type))
        if response.status_code >= 400 and url.endswith("/responses/"):
            assert (Submission.objects.count(), Tally.objects.count()) == before
        return
    params = query or ["format"]
    chosen = data.draw(st.lists(st.sampled_from(params), min_size=1, unique=True))
    pairs = []
    for name in chosen:
        value = data.draw(
            st.sampled_from(
                ["%00", "a%00b", "%ff%fe", "%ed%a0%80", "1e400", "5e-324", "-0", "nan", "inf",
                 "x" * 3000, "json", "csv", "0.95", "region", "%5B%5B%5B"]
            ),
            label=f"{path} {name}",
        )  # fmt: skip
        pairs.append(f"{quote(name)}={value}")
    full = url + "?" + "&".join(pairs)
    response = client.generic(method, full)
    _check(response, (method, full[:300]))
    assert (Submission.objects.count(), Tally.objects.count()) == before


@pytest.mark.slow  # every operation × hypothesis examples: ~8 s
@RAW
@given(data=st.data())
def test_every_operation_survives_hostile_raw_input(
    world: dict[str, Any], data: st.DataObject
) -> None:
    """Each example sends one hostile request to every operation (one world for all of them)."""
    for op in OPERATIONS:
        _one(world, op, data)


def test_operations_cover_the_api() -> None:
    """The list comes from the schema: the respondent, token and survey endpoints are in it."""
    paths = {(m, p) for m, p, _, _ in OPERATIONS}
    assert ("POST", "/api/v1/surveys/{slug}/responses/") in paths
    assert ("POST", "/api/v1/auth/token/") in paths
    assert ("POST", "/api/v1/surveys/") in paths and ("PATCH", "/api/v1/surveys/{slug}/") in paths
    assert len(OPERATIONS) >= 15
