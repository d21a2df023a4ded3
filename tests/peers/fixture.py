"""Load a fixture written by tests/peers/make_fixtures.R (R's RRreg/rr on simulated reports)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).with_name("fixtures")


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert data["generated_by"] == "tests/peers/make_fixtures.R"
    return data
