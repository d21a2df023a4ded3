"""The audit log (docs/accounts.md#audit): who did what to a survey, append-only.

Other apps decorate their services with :func:`audit.recording.records` (or call
:func:`audit.recording.record`); this app imports neither surveys nor privacy (pyproject.toml,
import-linter).
"""
