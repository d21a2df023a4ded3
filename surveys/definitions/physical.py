"""The no-JavaScript path's randomizer: a coin or dice whose faces realise a design exactly.

A physical protocol must reproduce the design's probabilities *exactly*, or the estimator is
biased and the stated ε is wrong. So each outcome's probability must be a whole number of the
device's equally likely faces, m/n: matched to within 2⁻⁵⁰ of the design's float (so 1/6 typed
as 0.16666666666666666 matches a die, 0.1667 does not), with nothing dropped — every outcome the
design can produce gets at least one face. The ε of the faces (exact fractions) is computed and
rounded up, and ``surveys.definitions.question_designs.question_epsilon`` reports the larger of it
and the browser's,
so the ε shown is never below what either path runs. When no device fits (an irrational k-RR keep
probability, say) the question needs JavaScript and the page says so.

Pure: works on ``dpcore.local`` designs, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from dpcore.local import BinaryDesign, KRRDesign
from dpcore.local.browser import epsilon_of_ratios, krr_epsilon
from dpcore.local.cheater import CheaterDetectionDesign, group_designs
from dpcore.local.designs import design_named


def gettext_noop(text: str) -> str:
    """Marks a word for the translation catalogues (``makemessages`` extracts every
    ``gettext_noop("…")``) without importing Django: the kinds translate it when shown."""
    return text


#: (faces n, instruction, face names), smallest first: the first device that fits is used.
DEVICES: Final[list[tuple[int, str, list[str]]]] = [
    (2, gettext_noop("Flip a coin."), [gettext_noop("heads"), gettext_noop("tails")]),
    (
        4,
        gettext_noop("Flip a coin twice."),
        [
            gettext_noop("heads then heads"),
            gettext_noop("heads then tails"),
            gettext_noop("tails then heads"),
            gettext_noop("tails then tails"),
        ],
    ),
    (6, gettext_noop("Roll a die."), [str(i) for i in range(1, 7)]),
    (
        36,
        gettext_noop(
            "Roll two dice, one after the other, and work out (first − 1) × 6 + second, "
            "a number from 1 to 36."
        ),
        [str(i) for i in range(1, 37)],
    ),
]
# A design float and a face fraction this close are the same number written in binary.
_MATCH: Final = Fraction(1, 2**50)

TRUTH = "truth"
YES = "yes"
NO = "no"
OPPOSITE = "opposite"
KEEP = "keep"
OTHER = "other"


@dataclass(frozen=True)
class Realisation:
    """A device and, per outcome, how many of its faces lead there (all ≥ 1, summing to n)."""

    faces: int
    instruction: str
    face_names: list[str]
    counts: list[tuple[str, int]]
    epsilon: float


def _outcomes(design: BinaryDesign | KRRDesign) -> list[tuple[str, float | Fraction]] | None:
    """Each outcome of the design and its probability; None when no device can run it."""
    if isinstance(design, KRRDesign):
        keep = design.keep_probability
        return [(KEEP, keep), (OTHER, 1.0 - keep)]
    # A design without a device (the crosswise model needs none: the respondent's own innocuous
    # fact is the randomness; its kind gives its page its own words) needs JavaScript.
    device = design_named(design.name).device
    return None if device is None else list(device(design.params))


def _epsilon(design: BinaryDesign | KRRDesign, counts: dict[str, int], n: int) -> float:
    share = {name: Fraction(m, n) for name, m in counts.items()}
    if isinstance(design, KRRDesign):
        return krr_epsilon(share[KEEP], design.k)
    # P(yes | trait) = truth + yes and P(yes | no trait) = yes + opposite, in faces.
    truth, yes, opposite = (share.get(o, Fraction(0)) for o in (TRUTH, YES, OPPOSITE))
    return epsilon_of_ratios(truth + yes, yes + opposite)


def physical_realisation(design: BinaryDesign | KRRDesign) -> Realisation | None:
    """The smallest device realising the design exactly, or None (the question needs JS).

    A design with no device (``DesignEntry.device``: the crosswise model needs none) gives
    None too; its kind gives its page its own words (``QuestionKind.physical_protocol``).
    """
    if isinstance(design, KRRDesign) and design.k - 1 > 6:
        return None  # the "other option" is picked by a die roll: at most 6 others
    chances = _outcomes(design)
    if chances is None:
        return None
    outcomes = [(name, Fraction(p)) for name, p in chances]
    if any(p <= 0 for _, p in outcomes):
        return None  # nothing is dropped: an outcome the faces never produce changes ε
    for n, instruction, names in DEVICES:
        counts = [(name, round(p * n)) for name, p in outcomes]
        exact = all(
            m >= 1 and abs(p - Fraction(m, n)) <= _MATCH
            for (_, p), (_, m) in zip(outcomes, counts, strict=True)
        )
        if exact and sum(m for _, m in counts) == n:
            eps = _epsilon(design, dict(counts), n)
            return Realisation(n, instruction, names, counts, eps)
    return None


def cheater_realisation(design: CheaterDetectionDesign) -> tuple[Realisation, Realisation] | None:
    """The no-JS protocol of the cheating-detection model: a coin flip picks the group (heads: 1,
    tails: 2; exactly ½ each), then that group's forced-response device. None when either
    group's probabilities are not a whole number of faces (the question then needs JavaScript).
    """
    first, second = (physical_realisation(group) for group in group_designs(design))
    if first is None or second is None:
        return None
    return first, second
