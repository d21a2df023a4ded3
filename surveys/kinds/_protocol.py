"""The no-JavaScript (physical) protocol's words that the kinds share: the respondent flips real
coins (or rolls a die) and ticks only the answer the coins told them to *record*.

The device and its faces come from ``surveys.definitions.physical`` (exact fractions, no dropped
outcome);
here they become instructions. No device → the question needs JavaScript, and the page says so.
Each kind puts the steps together (``QuestionKind.physical_protocol``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dpcore.local import DEFAULT_YES_NO_SPEC, DesignError
from surveys.definitions import physical
from surveys.kinds import _design as designs
from surveys.kinds._fields import PhysicalProtocol

COIN_DESIGN = {k: v for k, v in DEFAULT_YES_NO_SPEC.items() if k != "name"}

# Lazy: module-level words are translated when shown, in the respondent's language.
ACTIONS = {
    physical.TRUTH: gettext_lazy("answer truthfully (tick your true answer)"),
    physical.YES: gettext_lazy("tick YES, whatever your true answer"),
    physical.NO: gettext_lazy("tick NO, whatever your true answer"),
    physical.OPPOSITE: gettext_lazy("tick the opposite of your true answer"),
    physical.KEEP: gettext_lazy("tick your true answer"),
    physical.OTHER: gettext_lazy("tick a random other option"),
}
COIN_STEPS = [
    gettext_lazy("Flip a coin, where nobody can see it."),
    gettext_lazy("Tails: answer truthfully — tick your true answer below."),
    gettext_lazy(
        "Heads: flip again. Heads: tick YES. Tails: tick NO. (Do this whatever your true "
        "answer is.)"
    ),
]


def rows(realisation: physical.Realisation, actions: Mapping[str, Any] | None = None) -> list[str]:
    """One step per outcome of the device: which faces, and what to tick then."""
    actions = ACTIONS if actions is None else actions
    steps, start = [], 0
    for outcome, count in realisation.counts:
        # Face names are marked for translation in surveys.definitions.physical (digits stay
        # digits).
        chosen = [_(name) for name in realisation.face_names[start : start + count]]
        start += count
        if realisation.faces in (6, 36) and len(chosen) > 1:
            label = f"{chosen[0]}–{chosen[-1]}"
        else:
            label = _(" or ").join(chosen)
        step = _("%(faces)s: %(action)s.") % {
            "faces": label[:1].upper() + label[1:],
            "action": actions[outcome],
        }
        steps.append(step)
    return steps


def device_steps(realisation: physical.Realisation) -> list[str]:
    """The device's instruction, then one step per outcome."""
    return [
        _("%(instruction)s Do it where nobody can see.")
        % {"instruction": _(realisation.instruction)},
        *rows(realisation),
    ]


def is_coin_spec(spec: Mapping[str, Any]) -> bool:
    """The default two-coin forced-response design, which has its own short words."""
    return spec.get("name") == DEFAULT_YES_NO_SPEC["name"] and all(
        spec.get(key) == value for key, value in COIN_DESIGN.items()
    )


def needs_js() -> str:
    return _(
        "Its probabilities cannot be reproduced exactly with coins or dice, so this question "
        "needs JavaScript."
    )


def needs_js_protocol() -> PhysicalProtocol:
    return PhysicalProtocol(False, reason=needs_js())


def question_design_or_none(question: Any) -> Any:
    """The question's design, or None when its stored spec no longer parses (the page then says
    the question needs JavaScript, as it always did)."""
    try:
        return designs.question_design(question)
    except DesignError:
        return None


def binary_protocol(question: Any) -> PhysicalProtocol:
    """A yes/no design's coins or dice (the default coin design in its own short words)."""
    design = question_design_or_none(question)
    realisation = physical.physical_realisation(design) if design is not None else None
    if realisation is None:
        return needs_js_protocol()
    if is_coin_spec(design.to_spec()):
        return PhysicalProtocol(True, [str(step) for step in COIN_STEPS])
    return PhysicalProtocol(True, device_steps(realisation))
