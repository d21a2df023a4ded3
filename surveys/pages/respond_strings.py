"""The respondent page script's words (``static/js/respond.js``, ``static/js/respond/*``).

The script has no text of its own: the page hands it these strings, translated into the page's
language, in a JSON data island (``respond-strings``; CSP stays strict: no inline script, no
extra request). ``{name}`` marks a value the script fills in (``static/js/respond/i18n.js``).
"""

from __future__ import annotations

from django.utils.translation import gettext as _


def respond_strings() -> dict[str, str]:
    return {
        # reports as the respondent reads them
        "same": _("SAME"),
        "different": _("DIFFERENT"),
        "yes": _("YES"),
        "no": _("NO"),
        "quoted": _("“{label}”"),
        # one randomized question
        "already_randomized": _(
            "Your answer to this question was already randomized on this device. "
            "We will record {report}."
        ),
        "no_second_flip": _(
            "We don't flip again: several flips for the same question could be combined to "
            "reveal your true answer, so flipping again would weaken your protection."
        ),
        "group": _("Group {n}."),
        # a multi-select question (static/js/respond/kinds/multi.js)
        "ticked": _("TICKED"),
        "empty": _("EMPTY"),
        "multi_ticked": _("TICKED: {options}"),
        "multi_empty": _("EMPTY: {options}"),
        "multi_option_record": _("{option}: we will record {report}"),
        "multi_already": _(
            "Your answers to this question were already randomized on this device, each option "
            "separately. We will record:"
        ),
        "multi_no_second_flip": _(
            "We don't flip again: several flips for the same question could be combined to "
            "reveal your true answers, so flipping again would weaken your protection."
        ),
        "multi_each_drawn": _("Each option was decided separately, with its own draw."),
        "summary_multi": _(
            "To be sent: {report} — each box randomized separately on this device; nobody who "
            "sees a box can tell whether it is your true answer. Privacy: ε = {epsilon} ({k} "
            "options × ε = {per_option}, added up). {meaning}"
        ),
        # a choice question under OUE (static/js/respond/kinds/oue.js)
        "summary_oue": _(
            "To be sent: {report} — one box per option, each randomized on this device; nobody "
            "who sees the boxes can tell which option is your true answer. Privacy: ε = "
            "{epsilon}. {meaning}"
        ),
        "will_record": _("{what} We will record {report}."),
        # Issue 22 item 2: what is true after every draw, the truth kept or not.
        "stays_here": _(
            "What the draw showed stays on this device: whoever sees the recorded answer cannot "
            "tell whether it is your true answer or one picked by chance."
        ),
        # the draw, in words (static/js/respond/stage.js)
        "warner_truth": _(
            "The spinner picked the statement as asked, so your answer to it is recorded."
        ),
        "coins_truth": _("Tails: your true answer is recorded."),
        "spinner_truth": _("The spinner picked your true answer."),
        "coins_yes": _("Heads, then heads: YES is recorded whatever your true answer."),
        "coins_no": _("Heads, then tails: NO is recorded whatever your true answer."),
        "spinner_yes": _("The spinner picked YES, whatever your true answer."),
        "spinner_no": _("The spinner picked NO, whatever your true answer."),
        "negation": _(
            "The spinner picked the opposite statement, so your answer to the opposite is recorded."
        ),
        "innocuous": _(
            "The spinner picked the harmless question, and your browser answered it by chance."
        ),
        "keep": _("The spinner kept your true answer."),
        "other": _("The spinner replaced your answer with another option, picked at random."),
        "coin_caption": _("Coin {n}"),
        "heads": _("heads"),
        "tails": _("tails"),
        "spinning": _("Spinning…"),
        "result": _("Result: {label}"),
        # checking a step
        "tick_same_different": _("Tick SAME or DIFFERENT."),
        "tap_then_press": _("Tap your true answer, then press “{button}”."),
        "tick_then_press": _("Tick what is true for you (or nothing), then press “{button}”."),
        "number_between": _("Enter a number from {min} to {max}."),
        "whole_number_between": _("Enter a whole number from {min} to {max}."),
        "enter_number": _("Enter a number."),
        "choose": _("Choose an answer."),
        # the summary before sending
        "summary_unanswered": _("Left unanswered: nothing is sent for this question."),
        "summary_paired": _(
            "To be sent: {report} — only whether your two answers agree. Privacy: ε = "
            "{epsilon}. {meaning}"
        ),
        "summary_randomized": _(
            "To be sent: {report} — randomized on this device; nobody who sees it can tell "
            "whether it is your true answer. Privacy: ε = {epsilon}. {meaning}"
        ),
        "summary_direct": _("To be sent: {value}. {handling}"),
        "summary_total": _(
            "Your total privacy loss for this survey is ε = {epsilon} (the sum over the "
            "randomized questions; smaller is more private). Only the answers above are sent."
        ),
        "summary_none": _(
            "None of these answers is randomized: they are sent exactly as shown above."
        ),
        # the thank-you (issue 22 item 6): said only when a question was left out
        "thanks_unanswered_one": _(
            "Nothing was sent for the question you left unanswered or that did not apply to you."
        ),
        "thanks_unanswered_many": _(
            "Nothing was sent for the {n} questions you left unanswered or that did not apply "
            "to you."
        ),
        # sending
        "field_error": _("{field}: {errors}"),
        "please_check": _("Please check: {lines}"),
        "server_error": _("The server could not take your answers (error {status})."),
        "enter_code": _("Enter your invitation code at the top of the page."),
        # offline answering (static/js/respond/offline.js): a waiting answer refused later
        "queued_closed": _(
            "The survey closed before your answers could be sent, so they were not recorded."
        ),
        "queued_refused": _("The server did not accept your answers: {detail}"),
        "unreachable": _(
            "We could not reach the server. Your randomized answers are kept on this device; "
            "please try again."
        ),
    }
