"""The scope of the respondent page's memo (``static/js/rr/memo.js``): which stored reports a
page may reuse (issue 21 item 8).

Reports were kept under ``deniable:<slug>:<question key>``: a survey deleted and recreated under
the same custom slug reused the old draws (made under another design, sent to a page showing
another ε) and told earlier respondents "already answered". The scope is now the survey's
immutable identity (its primary key and creation time, never reused) and the randomized
questions' designs, hashed: a new survey or a new design is a new scope. For invite-only surveys
the page adds a tag of the invitation token (computed in the browser: the fragment token never
reaches the server), so invitee B on invitee A's device is a fresh respondent.
"""

from __future__ import annotations

import hashlib
import json

from surveys.definitions import question_designs as designs
from surveys.models import Question, Survey


def memo_scope(survey: Survey, questions: list[Question]) -> str:
    """An opaque, stable name for this survey and its randomized designs (no slug in it)."""
    randomized = [
        {
            "key": q.key,
            "kind": q.kind,
            "options": list(q.options or []),
            "thresholds": designs.question_thresholds(q),
        }
        for q in questions
        if q.is_randomized
    ]
    identity = {"survey": survey.pk, "created": survey.created_at.isoformat(), "q": randomized}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]
