"""The README's code blocks, read from README.md itself, so tests run exactly what users read."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(section: str, language: str) -> str:
    """The first ```<language> block under the ``## <section>`` heading of README.md."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    match = re.search(rf"^```{language}\n(.*?)^```$", body, flags=re.S | re.M)
    if match is None:
        raise AssertionError(f"README section {section!r} has no {language} block")
    return match.group(1)
