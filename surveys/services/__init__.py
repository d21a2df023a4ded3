"""Writes: surveys, invitations and submissions.

Every public function is ``<noun>_<verb>``, keyword-only, typed and transactional. Request bodies
are validated before a service is called, by the input serializers of :mod:`surveys.inputs`
(the API and the pages alike), which make the frozen specs of :mod:`surveys.definitions.specs`.
Services raise
the domain errors of :mod:`deniable.errors` (never DRF exceptions), so pages and the API share
them.

Privacy invariants enforced here (docs/privacy-model.md#unlinkability):

* only *reported* answers are accepted and stored — the API has no field for a true answer;
* a submission stores a random client UUID, the randomizer and the date; nothing about the client;
* invitation tokens are stored only as HMAC-SHA256 digests and consumed with one conditional
  ``UPDATE``, so a token is accepted exactly once even under concurrent posts;
* a submission never touches the tallies: once k unsealed submissions wait, their batch is
  published in its own transaction (:mod:`~surveys.services.batches`), adding its summed vectors
  to the tallies in one statement (:mod:`~surveys.services.tally_upsert`), so estimates never read
  reports, a rejected submission leaves no trace, and no tally moves by one respondent.

Modules: :mod:`~surveys.services.surveys` (create, update, open, close),
:mod:`~surveys.services.management` (duplicate, archive, delete, collaborators),
:mod:`~surveys.services.invitations`, :mod:`~surveys.services.submissions`
(:func:`submission_create`), :mod:`~surveys.services.submission_rows` (reports and tally cells),
:mod:`~surveys.services.submission_storage` (the SQL).
"""

from surveys.definitions.specs import MAX_ABS_NUMBER
from surveys.services.closing import (
    survey_close_if_due,
    surveys_close_due,
    surveys_sweep_embedded,
)
from surveys.services.invitations import (
    MAX_INVITATIONS,
    InvitationCounts,
    invitation_counts,
    invitation_digest,
    invitation_links_csv,
    invitations_create,
    invitations_revoke,
)
from surveys.services.management import (
    collaborator_remove,
    collaborator_set,
    survey_archive,
    survey_delete,
    survey_duplicate,
    survey_unarchive,
)
from surveys.services.shuffled_exports import (
    ShuffledExportPreparing,
    shuffled_export_enqueue,
    shuffled_export_get_or_produce,
    shuffled_export_produce,
)
from surveys.services.submissions import SubmissionOutcome, submission_create
from surveys.services.surveys import (
    KEY_RE,
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MIN_OPTIONS,
    TITLE_MAX,
    survey_close,
    survey_create,
    survey_open,
    survey_population_shares_set,
    survey_update,
)

__all__ = [
    "KEY_RE",
    "MAX_ABS_NUMBER",
    "MAX_INVITATIONS",
    "MAX_OPTIONS",
    "MAX_OPTION_LENGTH",
    "MAX_QUESTIONS",
    "MIN_OPTIONS",
    "TITLE_MAX",
    "InvitationCounts",
    "ShuffledExportPreparing",
    "SubmissionOutcome",
    "collaborator_remove",
    "collaborator_set",
    "invitation_counts",
    "invitation_digest",
    "invitation_links_csv",
    "invitations_create",
    "invitations_revoke",
    "shuffled_export_enqueue",
    "shuffled_export_get_or_produce",
    "shuffled_export_produce",
    "submission_create",
    "survey_archive",
    "survey_close",
    "survey_close_if_due",
    "survey_create",
    "survey_delete",
    "survey_duplicate",
    "survey_open",
    "survey_population_shares_set",
    "survey_unarchive",
    "survey_update",
    "surveys_close_due",
    "surveys_sweep_embedded",
]
