"""Validated release requests: frozen, typed values made by :mod:`privacy.inputs` and taken by
:func:`privacy.services.release_plan`, :func:`~privacy.services.release_request` and
:func:`~privacy.services.release_preview`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReleaseSpec:
    """``POST …/releases/`` and ``…/releases/preview/``.

    ``mechanism`` laplace takes ``epsilon``; gaussian takes ``rho``, or ``epsilon`` and
    ``delta``. ``questions`` are the released keys in survey order (the default, every
    releasable question but the ``group_by`` one, already resolved); ``group_by`` is a category
    question's key or "". ``exponential`` (issue 30) takes ``epsilon``, a ``statistic``
    (median, quantile, mode) and ``q`` for a quantile.
    """

    mechanism: str
    questions: tuple[str, ...]
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    group_by: str = ""
    request_id: str | None = None
    statistic: str = ""
    q: float | None = None
