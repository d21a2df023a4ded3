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
from collections.abc import Collection, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

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
            return _("1 in %(n)s") % {"n": n}
    return percent(p)


def _rounded(x: float, places: int) -> str:
    """Half-up rounding of the value as a person computes it: 0.875 → 87.5% → "88%", even when
    floating point gives 87.49999999999999 (a design of (0.6, 0.3, 0.1) does)."""
    clean = Decimal(repr(round(x, 9)))
    return str(clean.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _localized(number: str) -> str:
    """A rounded number's text with the active language's decimal separator ("87,5" in es)."""
    return number.replace(".", str(formats.get_format("DECIMAL_SEPARATOR")))


def percent(p: float) -> str:
    x = 100.0 * p
    value = _rounded(x, 1) if 0 < x < 1 or 99 < x < 100 else _rounded(x, 0)
    return _("%(value)s%%") % {"value": _localized(value)}


def times(x: float) -> str:
    """A ratio in words: "3 times", "1.4 times"."""
    text = _rounded(x, 1).removesuffix(".0") if x < 10 else _rounded(x, 0)
    return _("%(ratio)s times") % {"ratio": _localized(text)}


def _yes(report: str) -> str:
    """The reported answer as the pages print it: "YES" or "NO"."""
    return _("YES") if report == "yes" else _("NO")


def _answer(answer: str) -> str:
    """A true answer in running text: "yes" or "no"."""
    return _("yes") if answer == "yes" else _("no")


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
            "text": _(
                "A %(report)s report is %(times)s as likely from someone whose true answer is "
                "%(answer)s as from someone whose true answer is %(other)s. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that your true "
                "answer is %(answer)s."
            )
            % {
                "report": _yes(report),
                "times": times(ratio),
                "answer": _answer(report),
                "other": _answer(other),
                "percent": percent(post),
            },
        }
    return out


def _krr_reports(
    design: rr.KRRDesign, options: list[str], labels: Mapping[str, str]
) -> dict[str, dict[str, Any]]:
    """Keyed by the stored option (what is reported); the words use its label."""
    k = len(options)
    ratio = _ratio(design.keep_probability, design.other_probability)
    out = {}
    for option in options:
        post = posterior(ratio, 1.0 / k)
        out[option] = {
            "likelihood_ratio": ratio,
            "reference_prior": 1.0 / k,
            "posterior": post,
            "text": _(
                "A “%(option)s” report is %(times)s as likely from someone whose true answer is "
                "“%(option)s” as from someone whose true answer is any one other option. "
                "Someone who thought all %(k)s options equally likely for you would now think it "
                "is %(percent)s likely that your true answer is “%(option)s”."
            )
            % {
                "option": labels.get(option, option),
                "times": times(ratio),
                "k": k,
                "percent": percent(post),
            },
        }
    return out


def _multi_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """A multi question's words per box: ``yes`` = a ticked box, ``no`` = an empty one. Each
    box is its own report through the shared design, so its ratio is the yes/no one."""
    out = _yes_no_reports(design)
    for report in ("yes", "no"):
        ratio = out[report]["likelihood_ratio"]
        numbers = {
            "times": times(math.inf if ratio is None else ratio),
            "percent": percent(out[report]["posterior"]),
        }
        out[report]["text"] = (
            _(
                "Each box is randomized on its own. A ticked box is %(times)s as likely from "
                "someone for whom that option is true as from someone for whom it is false, so "
                "nobody can tell whether a ticked box is your true answer. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that the option "
                "is true for you."
            )
            if report == "yes"
            else _(
                "Each box is randomized on its own. An empty box is %(times)s as likely from "
                "someone for whom that option is false as from someone for whom it is true, so "
                "nobody can tell whether an empty box is your true answer. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that the option "
                "is false for you."
            )
        ) % numbers
    return out


MULTI_HANDLING_TEXT = gettext_lazy(
    "Randomized before it is sent, each box separately: only the recorded boxes are sent, and "
    "nobody who sees a box can tell whether it is your true answer or one picked by chance."
)
_MULTI_SECTORS = {"yes": gettext_lazy("Ticked"), "no": gettext_lazy("Empty")}


def _multi_randomizer(q: Question, randomizer: dict[str, Any]) -> dict[str, Any]:
    """The yes/no device, run once per option: said in a sentence before the device's own
    words (so no translated sentence is ever edited), YES/NO sectors named Ticked/Empty."""
    k = len(q.options or [])
    how = _(
        "Each of the %(k)s options is decided separately, with its own draw, as if it were a "
        "yes/no question about that option: YES ticks its box, NO leaves it empty."
    ) % {"k": k}
    return {
        **randomizer,
        "how": f"{how} {randomizer['how']}",
        "sectors": [
            {**sector, "label": str(_MULTI_SECTORS.get(sector["branch"], sector["label"]))}
            for sector in randomizer["sectors"]
        ],
        "button": _("Flip the coins for each option")
        if randomizer["kind"] == "coins"
        else _("Spin the spinner for each option"),
    }


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
            "button": _("Flip the coins"),
            "how": _(
                "Two coins decide. First coin tails: your true answer is recorded. Heads: a "
                "second coin decides — heads records YES, tails records NO, whatever your true "
                "answer."
            ),
            "sectors": [],
        }
    truth_label = _("Your true answer")
    if isinstance(design, rr.KRRDesign):
        keep = design.keep_probability
        sectors = [("keep", truth_label, keep), ("other", _("Another option"), 1 - keep)]
        how = _(
            "A spinner decides. %(share)s of the time your true answer is recorded; otherwise "
            "one of the other %(n)s options, picked at random."
        ) % {"share": _fraction(keep).capitalize(), "n": len(q.options) - 1}
    elif spec["name"] in ("forced_response", "two_probability"):
        # The two-probability device runs as forced response with truth a − b, YES b, NO 1 − a
        # (dpcore.local.browser): the same chances of each report given the true answer.
        p_truth, p_yes, p_no = (
            (float(spec[k]) for k in ("p_truth", "p_yes", "p_no"))
            if spec["name"] == "forced_response"
            else (design.c, design.d, design.p_no_given_trait)
        )
        sectors = [
            ("truth", truth_label, p_truth),
            ("yes", _("YES"), p_yes),
            ("no", _("NO"), p_no),
        ]
        how = _forced_how(p_truth, p_yes, p_no)
    elif spec["name"] == "warner":
        p = float(spec["p"])
        sectors = [
            ("truth", _("Statement as asked"), p),
            ("negation", _("Opposite statement"), 1 - p),
        ]
        how = _(
            "A spinner decides whether your answer is to the statement as asked (%(asked)s) or "
            "to its opposite (%(opposite)s); only you see which."
        ) % {"asked": _fraction(p), "opposite": _fraction(1 - p)}
    else:  # unrelated question
        p, u = float(spec["p"]), float(spec["innocuous_prevalence"])
        sectors = [
            ("truth", truth_label, p),
            ("innocuous-yes", _("Harmless question: YES"), (1 - p) * u),
            ("innocuous-no", _("Harmless question: NO"), (1 - p) * (1 - u)),
        ]
        how = _(
            "A spinner decides. %(share)s of the time your true answer is recorded; otherwise "
            "the answer to a harmless question, which your browser picks by chance."
        ) % {"share": _fraction(p).capitalize()}
    return {
        "kind": "spinner",
        "button": _("Spin the spinner"),
        "how": how,
        # ``percent`` is the legend's text for the share, rounded here so the page prints it
        # unchanged (it never formats a probability itself).
        "sectors": [
            {"branch": b, "label": label, "share": s, "percent": percent(s)}
            for b, label, s in sectors
        ],
    }


def _forced_how(p_truth: float, p_yes: float, p_no: float) -> str:
    return _(
        "A spinner decides. %(truth)s of the time your true answer is recorded; %(yes)s YES and "
        "%(no)s NO, whatever your true answer."
    ) % {
        "truth": _fraction(p_truth).capitalize(),
        "yes": _fraction(p_yes),
        "no": _fraction(p_no),
    }


def assumption() -> str:
    """The crosswise model's assumption (``surveys.innocuous``) in the active language."""
    return _(CROSSWISE_ASSUMPTION)


# --- the crosswise model: no randomizer ----------------------------------------------------------


def crosswise_randomizer(spec: dict[str, Any]) -> dict[str, Any]:
    """The crosswise page has no coins and no spinner: the respondent's own answer to the second
    (innocuous) statement, true for about ``p`` of people, is the chance."""
    p = float(spec["innocuous_prevalence"])
    text = spec.get("innocuous_text") or _("the second statement")
    return {
        "kind": "none",
        "button": "",
        "how": _(
            "No coin is needed. Say only whether your answers to the two statements are the "
            "same (both true or both false) or different. “%(statement)s” is true for about "
            "%(percent)s of people, so nobody can be sure from SAME or DIFFERENT what your "
            "answer to the first statement is. %(assumption)s"
        )
        % {"statement": text, "percent": percent(p), "assumption": assumption()},
        "assumption": assumption(),
        "innocuous_text": text,
        "innocuous_prevalence": p,
        "sectors": [],
    }


def _crosswise_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    """Keys ``yes`` (= SAME) and ``no`` (= DIFFERENT), like every yes/no design's reports:
    ``LR(same) = p/(1 − p)``, ``LR(different) = (1 − p)/p`` (true answer yes vs no)."""
    p = float(design.params["innocuous_prevalence"])
    out = {}
    pairs = (("yes", _("SAME"), p / (1 - p)), ("no", _("DIFFERENT"), (1 - p) / p))
    for report, word, ratio in pairs:
        # Words for the answer the report favours, so the ratio read out is ≥ 1.
        likely, other = ("yes", "no") if ratio >= 1 else ("no", "yes")
        shown = max(ratio, 1 / ratio)
        post = posterior(shown, 0.5)
        out[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": posterior(ratio, 0.5),
            "text": _(
                "A %(word)s answer is %(times)s as likely from someone whose true answer to the "
                "first statement is %(likely)s as from someone whose answer is %(other)s. "
                "Someone who thought it 50–50 beforehand would now think it is %(percent)s "
                "likely that your answer is %(likely)s. %(assumption)s"
            )
            % {
                "word": word,
                "times": times(shown),
                "likely": _answer(likely),
                "other": _answer(other),
                "percent": percent(post),
                "assumption": assumption(),
            },
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
        sectors = [("truth", _("Your true answer"), g.p_truth), ("yes", _("YES"), g.p_yes)]
        sectors.append(("no", _("NO"), g.p_no))
        groups.append(
            {
                "kind": "spinner",
                "button": _("Spin the spinner"),
                "how": _(
                    "Group %(n)s: %(truth)s of the time your true answer is recorded; %(yes)s "
                    "YES and %(no)s NO, whatever your true answer."
                )
                % {
                    "n": i,
                    "truth": _fraction(g.p_truth),
                    "yes": _fraction(g.p_yes),
                    "no": _fraction(g.p_no),
                },
                "sectors": [
                    {"branch": b, "label": label, "share": x, "percent": percent(x)}
                    for b, label, x in sectors
                ],
            }
        )
    how = (
        _(
            "First a fair coin puts you in group 1 or group 2 (it is sent with your answer and "
            "says nothing about it); then that group's spinner decides."
        )
        + " "
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
            "text": _(
                "In either group, a %(report)s report is at most %(times)s as likely from "
                "someone whose true answer is %(answer)s as from someone whose true answer is "
                "%(other)s. Someone who thought it 50–50 beforehand would now think it at most "
                "%(percent)s likely that your true answer is %(answer)s."
            )
            % {
                "report": _yes(report),
                "times": times(ratio),
                "answer": _answer(report),
                "other": _answer(other),
                "percent": percent(post),
            },
        }
    randomizer = {**groups[0], "how": how, "groups": groups}
    return {"randomizer": randomizer, "reports": reports}


HANDLING_TEXT = {
    # Issue 22 item 2: never "your true answer is never sent" — when chance keeps it, the
    # recorded answer IS the true one. What is true: chance's result stays with the respondent,
    # so nobody who sees the recorded answer can tell whether it is the truth or chance's.
    # "Before it is sent", not "on this device": without JavaScript the coins are real ones.
    RANDOMIZED: gettext_lazy(
        "Randomized before it is sent: only the recorded answer is sent, and nobody who sees it "
        "can tell whether it is your true answer or one picked by chance."
    ),
    DIRECT: gettext_lazy("Not randomized: sent exactly as you enter it."),
}


def question_protection(q: Question, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Handling, randomizer and per-report deniability of one question (JSON-ready), in the
    active language; ``labels`` are the options' words in it (the keys stay the options)."""
    out: dict[str, Any] = {
        "handling": handling(q),
        "handling_text": str(HANDLING_TEXT[handling(q)]),
    }
    if not q.is_randomized:
        return out
    design = designs.question_design(q)
    if designs.is_cheater(design):
        out.update(_cheater_protection(design))
        return out
    out["randomizer"] = _randomizer(q, design)
    if q.kind == Question.Kind.MULTI:
        out["randomizer"] = _multi_randomizer(q, out["randomizer"])
        out["handling_text"] = str(MULTI_HANDLING_TEXT)
        out["reports"] = _multi_reports(design)
        return out
    if is_crosswise(q):
        out["handling_text"] = _(
            "Crosswise: only SAME or DIFFERENT is sent, never your answer to either statement. "
            "%(assumption)s"
        ) % {"assumption": assumption()}
        out["reports"] = _crosswise_reports(design)
    elif isinstance(design, rr.KRRDesign):
        out["reports"] = _krr_reports(design, list(q.options), labels or {})
    else:
        out["reports"] = _yes_no_reports(design)
    return out


def _paired_sentence(paired: list[Question]) -> str:
    """The crosswise questions: nothing is drawn, only SAME or DIFFERENT is sent."""
    n = len(paired)
    return ngettext(
        "One question asks only whether two statements are both true or both false (SAME or "
        "DIFFERENT): nothing is randomized, and only that is sent.",
        "%(n)s questions ask only whether two statements are both true or both false (SAME or "
        "DIFFERENT): nothing is randomized, and only that is sent.",
        n,
    ) % {"n": n}


def _mixed_summary(randomized: int, total: int, direct: int) -> str:
    """ "r of n answers are randomized…; d are sent as entered", each clause with its own plural
    (issue 22 item 6: "1 of 3 answers are" was wrong)."""
    first = ngettext(
        "%(r)s of your %(n)s answers is randomized before it is sent.",
        "%(r)s of your %(n)s answers are randomized before they are sent.",
        randomized,
    ) % {"r": randomized, "n": total}
    second = ngettext(
        "%(d)s is sent exactly as you enter it.",
        "%(d)s are sent exactly as you enter them.",
        direct,
    ) % {"d": direct}
    return f"{first} {second}"


def survey_handling(
    questions: list[Question], answered: Collection[str] | None = None
) -> dict[str, Any]:
    """The survey-level sentences (intro and thank-you), true for this survey's questions;
    ``answered``: the keys of the answers sent (the no-JS thank-you), so that the lists name only
    those and the words about unanswered questions appear only when one was left out (the JS
    page filters its own lists, ``data-key``).

    A crosswise question draws no chance at all, so it is neither "randomized on this device" nor
    "sent exactly as entered": it is counted and listed apart (``paired``).
    """
    paired = [q for q in questions if is_crosswise(q)]
    randomized = [q for q in questions if q.is_randomized and not is_crosswise(q)]
    direct = [q for q in questions if not q.is_randomized]
    if randomized and not direct:
        summary = _(
            "Every answer in this survey is randomized before it is sent: chance's result stays "
            "with you, so nobody who sees an answer can tell whether it is your true one."
        )
        sent = _(
            "Only the recorded answers were sent. Chance's results stayed with you, so nobody "
            "who sees an answer can tell whether it is your true one or one picked by chance."
        )
    elif direct and not randomized:
        summary = _("No answer in this survey is randomized: each is sent exactly as you enter it.")
        sent = _("Your answers were sent exactly as you gave them; none was randomized.")
    elif randomized and direct:
        summary = _mixed_summary(len(randomized), len(questions), len(direct))
        sent = _(
            "Your answers to the randomized questions were sent only as recorded answers: "
            "chance's results stayed with you, so nobody can tell whether they are your true "
            "answers. Your answers to the other questions were sent exactly as you gave them."
        )
    else:  # only crosswise questions
        summary = sent = ""
    if paired:
        note = _paired_sentence(paired)
        summary, sent = f"{summary} {note}".strip(), f"{sent} {note}".strip()
    skipped = [] if answered is None else [q for q in questions if q.key not in answered]
    if sent and skipped:
        # Issue 22 item 6: said only when a question really was left out.
        sent += " " + ngettext(
            "Nothing was sent for the question you left unanswered or that did not apply to you.",
            "Nothing was sent for the %(n)s questions you left unanswered or that did not apply "
            "to you.",
            len(skipped),
        ) % {"n": len(skipped)}
    if answered is None:
        # Not known (the thank-you page's bare address): no list, and the words hedge.
        randomized, direct, paired = [], [], []
        if sent and any(not q.required or q.show_if for q in questions):
            sent += " " + _("If you left a question unanswered, nothing was sent for it.")
    else:
        # The lists name only what was sent.
        randomized = [q for q in randomized if q.key in answered]
        direct = [q for q in direct if q.key in answered]
        paired = [q for q in paired if q.key in answered]
    return {
        "summary": summary,
        "sent": sent,
        "randomized": [q.text for q in randomized],
        "direct": [q.text for q in direct],
        "paired": [q.text for q in paired],
    }
