"""Helpers of the releases API tests (tests/privacy/api/): a survey's releases URL and a raw
JSON POST."""

from __future__ import annotations


def url(survey, suffix=""):
    return f"/api/v1/surveys/{survey.slug}/releases/{suffix}"


def post_raw(client, path, text):
    return client.post(path, data=text, content_type="application/json")
