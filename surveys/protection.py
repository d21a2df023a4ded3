"""What the respondent pages say about each question's protection, with the numbers behind it.

One copy of the wording and the numbers: the server computes them here from the design
(``dpcore.local``), the templates print them and ``static/js/respond.js`` shows them unchanged.
The rule is documented in ``docs/respondent-pages.md``:

* **Handling.** A randomized question (yes/no with any design, choice with k-RR) is randomized on
  the respondent's device and only the report leaves it; a category or number question is sent
  exactly as entered.
* **Deniability of a report r.** The likelihood ratio
  ``LR(r) = P(report r | true answer r) / P(report r | true answer is another one)``
  (for yes/no: ``LR(yes) = (c + d)/d`` and ``LR(no) = (1 − d)/(1 − c − d)``; for k-RR
  ``LR(v) = p/q = e^ε`` for every option v), and the belief it leads to from a neutral reference
  prior — every answer equally likely, 1/k for k possible answers (k = 2 for yes/no):
  ``posterior = LR·π₀ / (LR·π₀ + 1 − π₀)``. For k-RR this equals the keep probability p.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from dpcore import local as rr
from surveys import designs
from surveys.innocuous import CROSSWISE_ASSUMPTION
from surveys.models import Question

RANDOMIZED = "randomized"
DIRECT = "direct"


def _fraction(p: float) -> str:
    """ "1 in 4" for simple shares, else a percentage."""
    for n in range(2, 11):
        if math.isclose(p, 1 / n, abs_tol=1e-9):
            return f"1 in {n}"
    return percent(p)


def _rounded(x: float, places: int) -> str:
    """Half-up rounding of the value as a person computes it: 0.875 → 87.5% → "88%", even when
    floating point gives 87.49999999999999 (a design of (0.6, 0.3, 0.1) does)."""
    clean = Decimal(repr(round(x, 9)))
    return str(clean.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def percent(p: float) -> str:
    x = 100.0 * p
    if 0 < x < 1 or 99 < x < 100:
        return f"{_rounded(x, 1)}%"
    return f"{_rounded(x, 0)}%"


def times(x: float) -> str:
    """A ratio in words: "3 times", "1.4 times"."""
    text = _rounded(x, 1).removesuffix(".0") if x < 10 else _rounded(x, 0)
    return f"{text} times"


def posterior(ratio: float, prior: float) -> float:
    """Bayes with a likelihood ratio: ``LR·π₀/(LR·π₀ + 1 − π₀)``; 1.0 when the ratio is ∞."""
    if math.isinf(ratio):
        return 1.0
    return ratio * prior / (ratio * prior + 1.0 - prior)


def _ratio(num: float, den: float) -> float:
    return math.inf if den <= 0.0 else num / den


def _yes_no_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    ratios = {
        "yes": _ratio(design.p_yes_given_trait, design.p_yes_given_no_trait),
        "no": _ratio(1.0 - design.p_yes_given_no_trait, design.p_no_given_trait),
    }
    out = {}
    for report, ratio in ratios.items():
        other = "no" if report == "yes" else "yes"
        post = posterior(ratio, 0.5)
        out[report] = {
            "likelihood_ratio": None if math.isinf(ratio) else ratio,
            "reference_prior": 0.5,
            "posterior": post,
            "text": (
                f"A {report.upper()} report is {times(ratio)} as likely from someone whose true "
                f"answer is {report} as from someone whose true answer is {other}. Someone who "
                f"thought it 50–50 beforehand would now think it is {percent(post)} likely "
                f"that your true answer is {report}."
            ),
        }
    return out


def _krr_reports(design: rr.KRRDesign, options: list[str]) -> dict[str, dict[str, Any]]:
    k = len(options)
    ratio = _ratio(design.keep_probability, design.other_probability)
    out = {}
    for option in options:
        post = posterior(ratio, 1.0 / k)
        out[option] = {
            "likelihood_ratio": ratio,
            "reference_prior": 1.0 / k,
            "posterior": post,
            "text": (
                f"A “{option}” report is {times(ratio)} as likely from someone whose true "
                f"answer is “{option}” as from someone whose true answer is any one other "
                f"option. Someone who thought all {k} options equally likely for you would now "
                f"think it is {percent(post)} likely that your true answer is “{option}”."
            ),
        }
    return out


def _multi_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """A multi question's words per box: ``yes`` = a ticked box, ``no`` = an empty one. Each
    box is its own report through the shared design, so its ratio is the yes/no one."""
    out = _yes_no_reports(design)
    for report, word in (("yes", "a ticked"), ("no", "an empty")):
        ratio = out[report]["likelihood_ratio"]
        shown = math.inf if ratio is None else ratio
        truth = "true" if report == "yes" else "false"
        other = "false" if report == "yes" else "true"
        out[report]["text"] = (
            f"Each box is randomized on its own. {word.capitalize()} box is {times(shown)} as "
            f"likely from someone for whom that option is {truth} as from someone for whom it is "
            f"{other}, so nobody can tell whether {word} box is your true answer. Someone who "
            f"thought it 50–50 beforehand would now think it is "
            f"{percent(out[report]['posterior'])} likely that the option is {truth} for you."
        )
    return out


MULTI_HANDLING_TEXT = (
    "Randomized on this device, each box separately: only the results are sent, never your "
    "true answers, and nobody can tell whether a ticked box is your true answer."
)


def is_coin_design(spec: dict[str, Any]) -> bool:
    return spec.get("name") == rr.DEFAULT_YES_NO_SPEC["name"] and all(
        math.isclose(float(spec[key]), value, abs_tol=1e-12)
        for key, value in rr.DEFAULT_YES_NO_SPEC.items()
        if key != "name"
    )


def _randomizer(q: Question, design: rr.BinaryDesign | rr.KRRDesign) -> dict[str, Any]:
    """One visual per design: two coins for the coin design, a spinner for every other one.

    ``sectors`` are the spinner's slices (branch names as ``static/js/rr/randomizer.js`` returns
    them) with their shares and the percentages the legend prints; the page only draws and labels
    them, the draw itself compares the server's integer thresholds (``dpcore.local.browser``).
    """
    spec = design.to_spec()
    if spec["name"] == "crosswise":
        return crosswise_randomizer(spec)
    if is_coin_design(spec):
        return {
            "kind": "coins",
            "button": "Flip the coins",
            "how": "Two coins decide. First coin tails: your true answer is recorded. Heads: "
            "a second coin decides — heads records YES, tails records NO, whatever your true "
            "answer.",
            "sectors": [],
        }
    if isinstance(design, rr.KRRDesign):
        keep = design.keep_probability
        sectors = [("keep", "Your true answer", keep), ("other", "Another option", 1 - keep)]
        how = (
            f"A spinner decides. {_fraction(keep).capitalize()} of the time your true answer "
            f"is recorded; otherwise one of the other {len(q.options) - 1} options, picked at "
            "random."
        )
    elif spec["name"] in ("forced_response", "two_probability"):
        # The two-probability device runs as forced response with truth a − b, YES b, NO 1 − a
        # (dpcore.local.browser): the same chances of each report given the true answer.
        p_truth, p_yes, p_no = (
            (float(spec[k]) for k in ("p_truth", "p_yes", "p_no"))
            if spec["name"] == "forced_response"
            else (design.c, design.d, design.p_no_given_trait)
        )
        sectors = [
            ("truth", "Your true answer", p_truth),
            ("yes", "YES", p_yes),
            ("no", "NO", p_no),
        ]
        how = (
            f"A spinner decides. {_fraction(p_truth).capitalize()} of the time your true answer "
            f"is recorded; {_fraction(p_yes)} YES and {_fraction(p_no)} NO, whatever your true "
            "answer."
        )
    elif spec["name"] == "warner":
        p = float(spec["p"])
        sectors = [("truth", "Statement as asked", p), ("negation", "Opposite statement", 1 - p)]
        how = (
            f"A spinner decides whether your answer is to the statement as asked "
            f"({_fraction(p)}) or to its opposite ({_fraction(1 - p)}); only you see which."
        )
    else:  # unrelated question
        p, u = float(spec["p"]), float(spec["innocuous_prevalence"])
        sectors = [
            ("truth", "Your true answer", p),
            ("innocuous-yes", "Harmless question: YES", (1 - p) * u),
            ("innocuous-no", "Harmless question: NO", (1 - p) * (1 - u)),
        ]
        how = (
            f"A spinner decides. {_fraction(p).capitalize()} of the time your true answer is "
            f"recorded; otherwise the answer to a harmless question, which your browser picks "
            "by chance."
        )
    return {
        "kind": "spinner",
        "button": "Spin the spinner",
        "how": how,
        # ``percent`` is the legend's text for the share, rounded here so the page prints it
        # unchanged (it never formats a probability itself).
        "sectors": [
            {"branch": b, "label": label, "share": s, "percent": percent(s)}
            for b, label, s in sectors
        ],
    }


# --- the crosswise model: no randomizer ----------------------------------------------------------


def crosswise_randomizer(spec: dict[str, Any]) -> dict[str, Any]:
    """The crosswise page has no coins and no spinner: the respondent's own answer to the second
    (innocuous) statement, true for about ``p`` of people, is the chance."""
    p = float(spec["innocuous_prevalence"])
    text = spec.get("innocuous_text") or "the second statement"
    return {
        "kind": "none",
        "button": "",
        "how": (
            f"No coin is needed. Say only whether your answers to the two statements are the "
            f"same (both true or both false) or different. “{text}” is true for about "
            f"{percent(p)} of people, so nobody can be sure from SAME or DIFFERENT what your "
            f"answer to the first statement is. {CROSSWISE_ASSUMPTION}"
        ),
        "assumption": CROSSWISE_ASSUMPTION,
        "innocuous_text": text,
        "innocuous_prevalence": p,
        "sectors": [],
    }


def _crosswise_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """Keys ``yes`` (= SAME) and ``no`` (= DIFFERENT), like every yes/no design's reports:
    ``LR(same) = p/(1 − p)``, ``LR(different) = (1 − p)/p`` (true answer yes vs no)."""
    p = float(design.params["innocuous_prevalence"])
    out = {}
    for report, word, ratio in (("yes", "SAME", p / (1 - p)), ("no", "DIFFERENT", (1 - p) / p)):
        # Words for the answer the report favours, so the ratio read out is ≥ 1.
        likely, other = ("yes", "no") if ratio >= 1 else ("no", "yes")
        shown = max(ratio, 1 / ratio)
        post = posterior(shown, 0.5)
        out[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": posterior(ratio, 0.5),
            "text": (
                f"A {word} answer is {times(shown)} as likely from someone whose true answer to "
                f"the first statement is {likely} as from someone whose answer is {other}. "
                f"Someone who thought it 50–50 beforehand would now think it is {percent(post)} "
                f"likely that your answer is {likely}. {CROSSWISE_ASSUMPTION}"
            ),
        }
    return out


def is_crosswise(q: Question) -> bool:
    """True for a yes/no question on the crosswise model (no randomizer on the page)."""
    return bool(q.kind == Question.Kind.YES_NO and (q.design or {}).get("name") == "crosswise")


def handling(q: Question) -> str:
    return RANDOMIZED if q.is_randomized else DIRECT


# --- cheating detection: a coin for the group, then that group's forced response ------------------


def _cheater_protection(design: Any) -> dict[str, Any]:
    """Words true for the cheating-detection design: the group (drawn first, ½ each, independent
    of the answer) is sent with the report, so what a report reveals is the larger of the two
    groups' likelihood ratios — the respondent's ε is the larger group ε. The page shows the
    drawn group's spinner (``randomizer.groups[g − 1]``, forced-response sectors)."""
    groups: list[dict[str, Any]] = []
    for i, g in enumerate(design.groups, start=1):
        sectors = [("truth", "Your true answer", g.p_truth), ("yes", "YES", g.p_yes)]
        sectors.append(("no", "NO", g.p_no))
        groups.append(
            {
                "kind": "spinner",
                "button": "Spin the spinner",
                "how": f"Group {i}: {_fraction(g.p_truth)} of the time your true answer is "
                f"recorded; {_fraction(g.p_yes)} YES and {_fraction(g.p_no)} NO, whatever your "
                "true answer.",
                "sectors": [
                    {"branch": b, "label": label, "share": x, "percent": percent(x)}
                    for b, label, x in sectors
                ],
            }
        )
    how = (
        "First a fair coin puts you in group 1 or group 2 (it is sent with your answer and says "
        "nothing about it); then that group's spinner decides. "
        + " ".join(str(grp["how"]) for grp in groups)
    )
    worst = {
        "yes": max((1.0 - g.p_no) / g.p_yes for g in design.groups),
        "no": max((1.0 - g.p_yes) / g.p_no for g in design.groups),
    }
    reports = {}
    for report, ratio in worst.items():
        other = "no" if report == "yes" else "yes"
        post = posterior(ratio, 0.5)
        reports[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": post,
            "text": (
                f"In either group, a {report.upper()} report is at most {times(ratio)} as likely "
                f"from someone whose true answer is {report} as from someone whose true answer "
                f"is {other}. Someone who thought it 50–50 beforehand would now think it at most "
                f"{percent(post)} likely that your true answer is {report}."
            ),
        }
    randomizer = {**groups[0], "how": how, "groups": groups}
    return {"randomizer": randomizer, "reports": reports}


HANDLING_TEXT = {
    RANDOMIZED: "Randomized on this device: only the result is sent, never your true answer.",
    DIRECT: "Not randomized: sent exactly as you enter it.",
}


def question_protection(q: Question) -> dict[str, Any]:
    """Handling, randomizer and per-report deniability of one question (JSON-ready)."""
    out: dict[str, Any] = {"handling": handling(q), "handling_text": HANDLING_TEXT[handling(q)]}
    if not q.is_randomized:
        return out
    design = designs.question_design(q)
    if designs.is_cheater(design):
        out.update(_cheater_protection(design))
        return out
    out["randomizer"] = _randomizer(q, design)
    if q.kind == Question.Kind.MULTI:
        k = len(q.options or [])
        randomizer = out["randomizer"]
        # The same coins (or spinner) decide each box again, independently of the others.
        how = randomizer["how"].replace("your true answer", "your true answer for that option")
        for word, box in (("YES", "TICKED"), ("NO", "EMPTY")):
            how = how.replace(f" {word}", f" {box}")
        randomizer["how"] = (
            f"Each of the {k} options is decided separately, with its own draw. {how}"
        )
        for sector in randomizer["sectors"]:
            sector["label"] = sector["label"].replace("YES", "Ticked").replace("NO", "Empty")
        randomizer["button"] = (
            "Flip the coins for each option"
            if randomizer["kind"] == "coins"
            else "Spin the spinner for each option"
        )
        out["handling_text"] = MULTI_HANDLING_TEXT
        out["reports"] = _multi_reports(design)
        return out
    if is_crosswise(q):
        out["handling_text"] = (
            "Crosswise: only SAME or DIFFERENT is sent, never your answer to either statement. "
            + CROSSWISE_ASSUMPTION
        )
        out["reports"] = _crosswise_reports(design)
    elif isinstance(design, rr.KRRDesign):
        out["reports"] = _krr_reports(design, list(q.options))
    else:
        out["reports"] = _yes_no_reports(design)
    return out


def _paired_sentence(paired: list[Question]) -> str:
    """The crosswise questions: nothing is drawn, only SAME or DIFFERENT is sent."""
    one = len(paired) == 1
    return (
        f" {len(paired)} {'asks' if one else 'ask'} only whether two statements are both true or "
        f"both false (SAME or DIFFERENT): nothing is randomized, and only that is sent."
    )


def survey_handling(questions: list[Question]) -> dict[str, Any]:
    """The survey-level sentences (intro and thank-you), true for this survey's questions.

    A crosswise question draws no chance at all, so it is neither "randomized on this device" nor
    "sent exactly as entered": it is counted and listed apart (``paired``).
    """
    paired = [q for q in questions if is_crosswise(q)]
    randomized = [q for q in questions if q.is_randomized and not is_crosswise(q)]
    direct = [q for q in questions if not q.is_randomized]
    if randomized and not direct:
        summary = (
            "Every answer in this survey is randomized on your device before it is sent: "
            "your true answers never leave it."
        )
        sent = (
            "Only the randomized answers left this device. Your true answers were never sent "
            "or saved."
        )
    elif direct and not randomized:
        summary = "No answer in this survey is randomized: each is sent exactly as you enter it."
        sent = "Your answers were sent exactly as you gave them; none was randomized."
    elif randomized and direct:
        summary = (
            f"{len(randomized)} of {len(questions)} answers are randomized on your device before "
            f"they are sent; the other {len(direct)} are sent exactly as you enter them."
        )
        sent = (
            "Your answers to the randomized questions left this device only as randomized "
            "results — those true answers were never sent or saved. Your answers to the other "
            "questions were sent exactly as you gave them."
        )
    else:  # only crosswise questions
        summary = sent = ""
    if paired:
        if randomized and direct:
            # "the other N" above counts the direct questions only: say what the rest are.
            summary = summary.replace(
                f"the other {len(direct)} are sent exactly",
                f"{len(direct)} {'is' if len(direct) == 1 else 'are'} sent exactly",
            )
        note = _paired_sentence(paired)
        summary, sent = (summary + note).strip(), (sent + note).strip()
    return {
        "summary": summary,
        "sent": sent,
        "randomized": [q.text for q in randomized],
        "direct": [q.text for q in direct],
        "paired": [q.text for q in paired],
    }
