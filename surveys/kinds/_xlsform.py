"""What the question kinds share for XLSForm (docs/xlsform.md): the row a kind reads, the cells a
kind writes, and the ``deniable::design`` compact syntax ``<name> <param>=<value> …``, generated
from the design registry (``dpcore.local.designs``) so that a new design needs no change here.

The kinds decide which rows are theirs (:meth:`~surveys.kinds.base.QuestionKind.xlsform_claims`)
and what they make of them; :mod:`surveys.xlsform` only reads and writes sheets.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dpcore.local import designs as registry

#: The list every yes/no question is written with (Kobo's docs use the same name).
YES_NO_NAMES = ("yes", "no")
#: A choice name a select_multiple and a ``relevant`` expression can carry as it is (no space,
#: no quote); other options are written as o1…ok with the option as the label.
_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
#: The text parameters of a design have columns of their own: ``innocuous_text`` → innocuous.
TEXT_SUFFIX = "_text"


@dataclass(frozen=True)
class XlsformRow:
    """One ``survey`` row as the kinds read it (the words are the default language's).

    ``type_word``: ``select_one``, ``select_multiple``, ``integer``, ``decimal``…;
    ``names``/``options``: its list's choice names and the options they stand for (the default
    language's labels, or the names); ``design``: the parsed ``deniable::design`` (None: empty);
    ``bounds``: (min, max) from ``constraint`` (None: empty).
    """

    type_word: str
    names: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    design: Mapping[str, Any] | None = None
    bounds: tuple[float, float] | None = None

    @property
    def yes_no_list(self) -> bool:
        """A list of exactly the names yes and no (any case): Kobo's and ours."""
        return sorted(n.strip().lower() for n in self.names) == sorted(YES_NO_NAMES)

    def design_serves(self, shape: str | None) -> bool:
        """Its design serves ``shape`` (``binary``, ``options``, ``each_option``)."""
        if self.design is None or shape is None:
            return False
        entry = _entry(self.design.get("name"))
        return entry is not None and shape in entry.serves

    @property
    def ordered_names(self) -> bool:
        """The list's names are 1..k in order: an ordered (Likert) choice."""
        return list(self.names) == [str(i) for i in range(1, len(self.names) + 1)]


@dataclass(frozen=True)
class XlsformCells:
    """What a kind writes for one question: its type cell, its choice list (name, option) pairs
    and any other cells by column (``constraint``)."""

    type: str
    choices: tuple[tuple[str, str], ...] = ()
    cells: dict[str, str] = field(default_factory=dict)
    #: One list every yes/no question shares (written once, its labels the interface's own).
    shared: bool = False


def _entry(name: Any) -> registry.DesignEntry | None:
    try:
        return registry.design_named(name) if isinstance(name, str) else None
    except KeyError:
        return None


def choice_names(options: Sequence[str], *, ordered: bool = False) -> tuple[str, ...]:
    """The choice names a list is written with: 1..k when ordered; the options themselves when
    every one is a safe name and they do not read as 1..k; else o1..ok."""
    k = len(options)
    if ordered:
        return tuple(str(i) for i in range(1, k + 1))
    plain = tuple(options)
    if all(_SAFE_NAME.match(o) for o in plain):
        return plain
    return tuple(f"o{i}" for i in range(1, k + 1))


def option_list(
    type_word: str, list_name: str, options: Sequence[str], *, ordered: bool = False
) -> XlsformCells:
    """A select (``select_one``/``select_multiple``) over its own list."""
    names = choice_names(options, ordered=ordered)
    return XlsformCells(f"{type_word} {list_name}", tuple(zip(names, options, strict=True)))


def options_and_design(stored_kind: str, row: XlsformRow) -> dict[str, Any]:
    """The API's JSON of a row whose question has options and a design (multi, OUE)."""
    return {"kind": stored_kind, "options": list(row.options), "design": dict(row.design or {})}


def yes_no_cells(list_name: str) -> XlsformCells:
    """A yes/no question: ``select_one <list_name>`` over the shared list (named after the yes/no
    kind, ``select_one yes_no``, as Kobo's documentation writes it)."""
    return XlsformCells(f"select_one {list_name}", (("yes", "Yes"), ("no", "No")), shared=True)


def bounds_constraint(low: float, high: float) -> str:
    """``. >= a and . <= b`` with the bounds written exactly (shortest round-trip repr)."""
    return f". >= {number_text(low)} and . <= {number_text(high)}"


def number_text(value: float) -> str:
    """A number as written in a cell: integers without a point, others by ``repr`` (exact)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


# ── the compact design syntax ──────────────────────────────────────────────────────────────────


def text_column(param: str) -> str:
    """The column of a design's text parameter: ``innocuous_text`` → ``deniable::innocuous``."""
    return "deniable::" + param.removesuffix(TEXT_SUFFIX)


def text_params(name: Any) -> tuple[str, ...]:
    """The text parameters of the design called ``name`` (none when unknown)."""
    entry = _entry(name)
    return entry.texts if entry is not None else ()


def design_text(spec: Mapping[str, Any]) -> str:
    """``<name> <param>=<value> …``: its numbers in the registry's order, then any other key;
    groups as ``p_yes:p_no|p_yes:p_no``; text parameters are left to their own columns."""
    name = str(spec["name"])
    entry = _entry(name)
    params = entry.params if entry is not None else ()
    order = [p.name for p in params] + sorted(set(spec) - {p.name for p in params} - {"name"})
    parts = [name]
    for key in order:
        if key not in spec or key in text_params(name):
            continue
        value = spec[key]
        param = next((p for p in params if p.name == key), None)
        if param is not None and param.type == "groups":
            fields = [f.name for f in param.fields]
            value = "|".join(":".join(number_text(g[f]) for f in fields) for g in value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            value = number_text(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


def parse_design(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """A ``deniable::design`` cell read back: (spec, problems). Only the syntax and the names are
    checked here; the values are the survey validator's (it names the bad parameter)."""
    words = text.split()
    if not words:
        return None, []
    name, problems = words[0], []
    entry = _entry(name)
    if entry is None:
        known = ", ".join(e.name for e in registry.registered())
        return None, [f"Unknown design {name!r}; the designs are: {known}."]
    spec: dict[str, Any] = {"name": name}
    allowed = {p.name: p for p in entry.params if p.type != "text"}
    for word in words[1:]:
        key, sep, raw = word.partition("=")
        if not sep or not key:
            problems.append(f"{word!r} is not <parameter>=<value> (e.g. {_example(entry)}).")
            continue
        if key not in allowed and key not in entry.extra_keys:
            names = ", ".join([*allowed, *entry.extra_keys])
            problems.append(f"{name} has no parameter {key!r}; its parameters are: {names}.")
            continue
        if key in spec:
            problems.append(f"{key} is given twice.")
            continue
        param = allowed.get(key)
        if param is not None and param.type == "groups":
            value, problem = _groups(raw, [f.name for f in param.fields], param.count)
        else:
            value, problem = _number(raw)
        if problem:
            problems.append(f"{key}: {problem}")
        else:
            spec[key] = value
    return spec, problems


def _example(entry: registry.DesignEntry) -> str:
    return design_text({k: v for k, v in entry.starting.items() if k not in entry.texts})


def _number(raw: str) -> tuple[Any, str | None]:
    try:
        value: float | int = int(raw) if re.fullmatch(r"[+-]?\d{1,15}", raw) else float(raw)
    except ValueError:
        return None, f"{raw!r} is not a number."
    if not math.isfinite(value):
        return None, f"{raw!r} is not a finite number."
    return value, None


def _groups(raw: str, fields: list[str], count: int) -> tuple[Any, str | None]:
    groups = []
    for part in raw.split("|"):
        values = part.split(":")
        if len(values) != len(fields):
            return None, f"write each group as {':'.join(fields)}, groups joined by |."
        numbers = []
        for v in values:
            number, problem = _number(v)
            if problem:
                return None, problem
            numbers.append(number)
        groups.append(dict(zip(fields, numbers, strict=True)))
    if len(groups) != count:
        return None, f"give {count} groups joined by | (got {len(groups)})."
    return groups, None
