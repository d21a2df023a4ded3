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


# Appended to the README's R block: every cell as UTF-8 hex (text), %.17g (numbers) or NA, one
# row per line, so Python can compare bytes exactly whatever R's locale.
R_DUMP = r"""
cells <- lapply(reports, function(column) {
  if (is.character(column)) {
    hex <- function(v) paste(as.character(charToRaw(enc2utf8(v))), collapse = "")
    out <- vapply(column, hex, "")
  } else {
    out <- sprintf("%.17g", as.numeric(column))
  }
  out[is.na(column)] <- "NA"
  out
})
writeLines(c(paste(names(reports), collapse = "\t"), do.call(paste, c(cells, sep = "\t"))))
"""
