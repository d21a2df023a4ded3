"""The design registry: one :class:`DesignEntry` per module of :mod:`dpcore.local.designs`.

Each design module calls :func:`register` once with what the rest of the house needs to know about
the design, so that no other module names it: its parameter schema (from which the API's schema,
the input validation and the builder's fields are generated), its starting spec, the question
shapes it serves, how to build it from a spec, and (for one-report yes/no designs) the hooks the
browser plan uses. Modules are discovered, none is named here (as ``surveys.kinds.registry``).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from typing import Any, Final, Literal, Protocol

__all__ = [
    "BINARY_AND_EACH_OPTION",
    "EACH_OPTION",
    "BrowserHooks",
    "DesignEntry",
    "Outcome",
    "Param",
    "Serves",
    "design_named",
    "register",
    "registered",
]

#: The question shapes a design serves: ``binary`` one yes/no report, ``options`` one report of
#: k options (``k`` is the question's option count), ``each_option`` one yes/no report per option
#: (a randomizer the page runs once per option). App vocabulary maps onto these.
Serves = Literal["binary", "options", "each_option"]
#: One yes/no report per option of a multi question (named once: designs, kinds and the preview
#: refer to it).
EACH_OPTION: Final[Serves] = "each_option"
#: What a one-report yes/no design that a multi question may also run serves.
BINARY_AND_EACH_OPTION: Final[frozenset[Serves]] = frozenset({"binary", EACH_OPTION})
ParamType = Literal["probability", "positive", "text", "groups"]
#: What a physical device's face tells a respondent to report (the no-JS path,
#: ``surveys.definitions.physical``): the true answer, YES, NO, or the opposite of the truth.
Outcome = Literal["truth", "yes", "no", "opposite"]


class SimulationDraws(Protocol):
    """Where a *simulated* respondent's extra uniform draws come from (a seeded numpy Generator in
    the demo and the statistical tests). Typed by what it does, so this package never names
    ``numpy.random``: privacy noise here comes from ``secrets`` only (tests/dpcore/central/
    test_noise.py)."""

    def random(self) -> float: ...


@dataclasses.dataclass(frozen=True)
class Param:
    """One spec field: its name, type, bounds, the builder's label and the schema's help.

    ``probability`` is a number in [0, 1]; ``positive`` a number in (0, ``maximum``]; ``text`` a
    string of at most ``max_length`` characters; ``groups`` a list of ``count`` objects, each with
    the ``fields`` given (their names prefixed ``groups[i].`` in errors).
    """

    name: str
    type: ParamType
    label: str
    help: str
    maximum: float | None = None
    max_length: int | None = None
    fields: tuple[Param, ...] = ()
    count: int = 0

    def schema(self) -> dict[str, Any]:
        """The field's JSON (OpenAPI 3.0) schema."""
        if self.type == "text":
            return {"type": "string", "maxLength": self.max_length, "description": self.help}
        if self.type == "groups":
            return {
                "type": "array",
                "minItems": self.count,
                "maxItems": self.count,
                "description": self.help,
                "items": {
                    "type": "object",
                    "properties": {f.name: _bare(f.schema()) for f in self.fields},
                    "required": [f.name for f in self.fields],
                    "additionalProperties": False,
                },
            }
        out: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1}
        if self.type == "positive":
            out.update(exclusiveMinimum=True, maximum=self.maximum)
        return {**out, "description": self.help}

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the builder (name, type, label, bounds, sub-fields)."""
        out: dict[str, Any] = {"name": self.name, "type": self.type, "label": self.label}
        if self.fields:
            out["fields"] = [f.describe() for f in self.fields]
            out["count"] = self.count
        if self.type == "positive":
            out["maximum"] = self.maximum
        return out


def _bare(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "description"}


@dataclasses.dataclass(frozen=True)
class BrowserHooks:
    """How the page runs a one-report design on the 2⁵³ grid (:mod:`dpcore.local.browser`).

    ``nominal(params)``: each probability rounded to the grid (refusing one that rounds to 0 or
    1); ``realise(t)``: the thresholds by name and the exact ``P(yes | trait)``,
    ``P(yes | no trait)`` they give, or None if the thresholds are not a valid device;
    ``sectors(params)``: the branches the page's draw may take (as the design's page module,
    ``static/js/rr/designs/<name>.js``, names them, the spinner's slices) and each one's share,
    from the spec values.
    """

    nominal: Callable[[Mapping[str, float]], tuple[int, ...]]
    realise: Callable[[tuple[int, ...]], tuple[dict[str, int], Fraction, Fraction] | None]
    sectors: Callable[[Mapping[str, float]], list[tuple[str, float]]] | None = None


@dataclasses.dataclass(frozen=True)
class DesignEntry:
    """One registered design. ``order`` sorts the registry (menus, error messages)."""

    name: str
    title: str
    order: int
    params: tuple[Param, ...]
    serves: frozenset[Serves]
    starting: Mapping[str, Any]
    build: Callable[[Mapping[str, Any], int | None], Any]
    #: One report ``λ = c·π + d`` (a ``BinaryDesign``); False for k-RR and grouped designs.
    binary: bool = False
    #: Reports are ``{group, report}``: the page draws a group per respondent.
    grouped: bool = False
    #: ``1 − c − d`` from the spec values without cancellation (``BinaryDesign``).
    p_no_given_trait: Callable[[Mapping[str, float]], float] | None = None
    #: c = P(yes | trait) − P(yes | no trait) may be negative (crosswise with p < ½).
    negative_c: bool = False
    #: A design the page draws nothing for (the respondent's own second fact is the randomness):
    #: its exact ``(P(yes | trait), P(yes | no trait))`` from the spec values.
    no_randomizer: Callable[[Mapping[str, float]], tuple[Fraction, Fraction]] | None = None
    browser: BrowserHooks | None = None
    #: The respondent page draws this design's report with its own ES module (:attr:`js_module`),
    #: which registers the design's threshold names, their check and its draw with
    #: ``static/js/rr/randomizer.js``; the page loads every such module. False: nothing is drawn,
    #: or the module of the design's question kind draws (``static/js/respond/kinds/``).
    page_module: bool = False
    #: The field to name when ε exceeds the cap, from the spec values (default: the first number).
    cap_field: Callable[[Mapping[str, float]], str] | None = None
    #: Keys a spec may carry besides its parameters (k-RR: ``k``, if it agrees).
    extra_keys: tuple[str, ...] = ()
    #: A respondent's device simulated (the demo and the statistical tests, never the server's
    #: own noise): the report given the spec, the truth, one uniform draw ``u`` and the
    #: generator for any further draw. None: not a one-report yes/no design.
    simulate: Callable[[Mapping[str, Any], bool, float, SimulationDraws], bool] | None = None
    #: The outcomes of a coin or dice device running the design and their chances, from the spec
    #: values (None: no device runs it, the no-JS page then needs JavaScript or draws nothing).
    device: Callable[[Mapping[str, Any]], list[tuple[Outcome, float | Fraction]]] | None = None
    #: An R call estimating the share from a report column (``rr::rrreg`` or ``RRreg``) given the
    #: column's key, the key as an R term and the spec; None when no R package runs the design.
    r_call: Callable[[str, str, Mapping[str, Any]], str] | None = None

    @property
    def numbers(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.type in ("probability", "positive"))

    def epsilon_field(self, params: Mapping[str, float]) -> str:
        """The field an over-the-cap ε is reported on."""
        return self.cap_field(params) if self.cap_field else self.numbers[0]

    @property
    def js_module(self) -> str | None:
        """The page's ES module of a design with a :attr:`page_module` (under ``static/js/``)."""
        return f"rr/designs/{self.name}.js" if self.page_module else None

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.type == "text")

    def schema(self) -> dict[str, Any]:
        """The JSON schema of this design's spec (``name`` fixed, no other keys)."""
        return {
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": [self.name]},
                **{p.name: p.schema() for p in self.params},
            },
            "required": ["name"],
            "additionalProperties": False,
        }

    def describe(self) -> dict[str, Any]:
        """What the builder reads: name, title, parameters, shapes served, whether it is grouped
        or paired (no randomizer: SAME/DIFFERENT reports)."""
        return {
            "name": self.name,
            "title": self.title,
            "params": [p.describe() for p in self.params],
            "serves": sorted(self.serves),
            "grouped": self.grouped,
            # Its report is SAME or DIFFERENT: no randomizer, the respondent pairs the two facts.
            "paired": self.no_randomizer is not None,
        }


_ENTRIES: Final[dict[str, DesignEntry]] = {}
_INFRASTRUCTURE: Final = frozenset({"_binary", "_registry"})


def register(entry: DesignEntry) -> DesignEntry:
    """Add ``entry`` (once per name); returns it, so a module can keep it as ``ENTRY``."""
    if _ENTRIES.get(entry.name, entry) is not entry:
        raise RuntimeError(f"design registered twice: {entry.name}")
    _ENTRIES[entry.name] = entry
    return entry


@cache
def registered() -> tuple[DesignEntry, ...]:
    """Every design, in ``order``; the first call imports every module of the package."""
    package = importlib.import_module("dpcore.local.designs")
    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in _INFRASTRUCTURE:
            importlib.import_module(f"dpcore.local.designs.{module.name}")
    return tuple(sorted(_ENTRIES.values(), key=lambda e: (e.order, e.name)))


def design_named(name: str) -> DesignEntry:
    """The design registered under ``name`` (KeyError when unknown)."""
    registered()
    return _ENTRIES[name]
