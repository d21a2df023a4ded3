"""A vector of float64 sums: ``double precision[]`` on PostgreSQL, JSON text on SQLite.

Both databases add two such vectors element-wise inside an upsert
(``surveys.services.submission_storage``), so a counter row is never read into Python to be
incremented.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import models


class SumsVectorField(models.Field):
    description = "A vector of float64 sums"

    def db_type(self, connection: Any) -> str:
        return "double precision[]" if connection.vendor == "postgresql" else "text"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> list[float] | None:
        return self.to_python(value)

    def to_python(self, value: Any) -> list[float] | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = json.loads(value)
        return [float(x) for x in value]

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None:
            return None
        floats = [float(x) for x in value]
        return floats if connection.vendor == "postgresql" else json.dumps(floats)
