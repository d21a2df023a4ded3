"""The builder offers OUE beside k-RR for a choice question, with the chooser's URL (issue 26.1)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_builder_has_a_design_picker_for_choice_and_the_recommend_url(client, alice):
    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    picker = re.search(r'<select data-path="options_design">(.*?)</select>', html, re.S)
    assert picker is not None
    assert re.findall(r'value="(\w+)"', picker.group(1)) == ["k_rr", "oue"]
    assert 'data-role="recommend"' in html
    island = re.search(
        r'<script id="builder-data" type="application/json">(.*?)</script>', html, re.S
    )
    data = json.loads(island.group(1))
    assert data["recommend_url"] == reverse("api-design-recommend")
    assert data["starting_designs"]["oue"]["name"] == "oue"
