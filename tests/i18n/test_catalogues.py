"""The respondent interface's catalogues (docs/translations.md#maintainers): every string of the
code is in locale/{en,es}/LC_MESSAGES/django.po, translated (no empty or fuzzy msgstr), and the
compiled .mo says exactly what the .po says. `make messages` fixes the first and last."""

from __future__ import annotations

import ast
import gettext
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from testsupport.services import require_service

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = ("en", "es")
# The same ignores as `make messages` (Makefile).
IGNORE = [".venv*", "node_modules", "var", "tests", "bench", "testsupport", "docs"]


def _parse_po(path: Path) -> dict[object, dict[str, object]]:
    """msgid (or (msgid, plural index)) → {"msgstr", "fuzzy"}; obsolete (#~) entries skipped."""
    entries: dict[object, dict[str, object]] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        lines = [ln for ln in block.strip().splitlines() if not ln.startswith("#~")]
        fuzzy = any(ln.startswith("#,") and "fuzzy" in ln for ln in lines)
        fields: dict[str, str] = {}
        current = None
        for ln in lines:
            if ln.startswith("#") or not ln:
                continue
            if ln.startswith('"'):
                fields[current] += ast.literal_eval(ln)
            else:
                current, _, rest = ln.partition(" ")
                fields[current] = ast.literal_eval(rest)
        if "msgid" not in fields:
            continue
        msgid = fields["msgid"]
        if "msgid_plural" in fields:
            for name, value in fields.items():
                if name.startswith("msgstr["):
                    index = int(name[7:-1])
                    source = msgid if index == 0 else fields["msgid_plural"]
                    entries[(msgid, index)] = {"msgstr": value, "fuzzy": fuzzy, "source": source}
        else:
            entries[msgid] = {"msgstr": fields.get("msgstr", ""), "fuzzy": fuzzy}
    return entries


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(lang):
    entries = _parse_po(LOCALE / lang / "LC_MESSAGES" / "django.po")
    assert len(entries) > 150
    untranslated = [k for k, v in entries.items() if k and not v["msgstr"]]
    fuzzy = [k for k, v in entries.items() if v["fuzzy"]]
    assert not untranslated, f"untranslated in {lang}: {untranslated}"
    assert not fuzzy, f"fuzzy in {lang}: {fuzzy}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalogue_matches_the_po(lang):
    po = _parse_po(LOCALE / lang / "LC_MESSAGES" / "django.po")
    with (LOCALE / lang / "LC_MESSAGES" / "django.mo").open("rb") as handle:
        mo = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    expected = {k: v["msgstr"] for k, v in po.items() if k and not v["fuzzy"]}
    compiled = {k: v for k, v in mo.items() if k != ""}
    assert compiled == expected, "run `make messages` (the .mo is out of date)"


def test_the_catalogues_hold_every_string_of_the_code(tmp_path, monkeypatch):
    """makemessages into a scratch directory: its msgids must be exactly the committed ones (a
    new respondent string, or one removed, fails here until `make messages` is run)."""
    require_service(shutil.which("xgettext") is not None, "GNU gettext (apt package gettext)")
    # makemessages writes next to the sources' own locale/ dir: run it in a scratch tree of
    # symlinks to the sources (no locale/ there), writing to a scratch LOCALE_PATHS.
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    base = Path(settings.BASE_DIR)
    for child in base.iterdir():
        if child.name != "locale" and not child.name.startswith("."):
            (src / child.name).symlink_to(child)
    monkeypatch.chdir(src)
    with override_settings(LOCALE_PATHS=[out]):
        call_command(
            "makemessages",
            locale=["es"],
            ignore_patterns=IGNORE,
            no_location=True,
            symlinks=True,
            verbosity=0,
        )
    fresh = {k for k in _parse_po(out / "es" / "LC_MESSAGES" / "django.po") if k}
    for lang in LANGUAGES:
        committed = {k for k in _parse_po(LOCALE / lang / "LC_MESSAGES" / "django.po") if k}
        assert fresh - committed == set(), f"missing from {lang}: run `make messages`"
        assert committed - fresh == set(), f"stale in {lang}: run `make messages`"


def test_the_catalogues_keep_every_placeholder():
    """A translation never drops or invents a %(name)s or {name} placeholder (msgfmt checks
    python-format; the page script's {name} strings are checked here)."""
    import re

    pattern = re.compile(r"%\(\w+\)s|\{\w+\}")
    entries = _parse_po(LOCALE / "es" / "LC_MESSAGES" / "django.po")
    for key, value in entries.items():
        source = str(value.get("source", key))
        if not source:
            continue
        if isinstance(key, tuple) and key[1] == 0:
            # The singular may leave the count out ("Please fix this problem").
            assert set(pattern.findall(str(value["msgstr"]))) <= set(pattern.findall(source))
            continue
        assert set(pattern.findall(str(value["msgstr"]))) == set(pattern.findall(source)), key


def test_english_says_exactly_what_the_code_says():
    """English is the source language: each msgstr is its msgid (or msgid_plural). A msgid that
    gettext merged fuzzily from a similar older string kept that string's words once (“This
    question must be answered.” read “This randomized question must be answered.”)."""
    entries = _parse_po(LOCALE / "en" / "LC_MESSAGES" / "django.po")
    wrong = {
        k: v["msgstr"]
        for k, v in entries.items()
        if k and v["msgstr"] != (v.get("source") if isinstance(k, tuple) else k)
    }
    assert not wrong, wrong


def test_spanish_states_each_likelihood_ratio_as_a_ratio():
    """English "N times as likely" is a ratio of N; Spanish "N veces más probable" reads as N + 1
    times. Every such sentence says "tan probable(s) … como" (an OUE sentence said "más")."""
    entries = _parse_po(LOCALE / "es" / "LC_MESSAGES" / "django.po")
    ratios = {k: v for k, v in entries.items() if "%(times)s as likely" in str(k)}
    assert len(ratios) >= 4
    for key, value in ratios.items():
        text = " ".join(str(value["msgstr"]).split())
        assert "%(times)s tan probable" in text and " como " in text, key
        assert "%(times)s más" not in text, key
