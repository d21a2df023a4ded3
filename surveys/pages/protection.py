"""What the respondent pages say about each question's protection, with the numbers behind it.

One copy of the wording and the numbers: the server computes them here from the design
(``dpcore.local``), the templates print them and ``static/js/respond.js`` shows them unchanged.
The rule is documented in ``docs/respondent-pages.md``:

Each kind says what is particular to it (``QuestionKind.protection`` in ``surveys.kinds``, with
the shared words and numbers in ``surveys.kinds._deniability``).

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

from collections.abc import Collection, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from surveys.kinds import kind_of
from surveys.models import Question

RANDOMIZED = "randomized"
DIRECT = "direct"


def handling(q: Question) -> str:
    return RANDOMIZED if q.is_randomized else DIRECT


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
    if q.is_randomized:
        # The kind's randomizer and reports (and its own handling words, when they differ).
        out.update(kind_of(q).protection(q, labels or {}))
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
    paired = [q for q in questions if kind_of(q).paired]
    randomized = [q for q in questions if q.is_randomized and not kind_of(q).paired]
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
