"""Random keys and their digests, for API tokens and sign-up invitations.

A key is 32 random bytes (``secrets``); only its SHA-256 digest is stored. A plain hash and not a
slow password hash: the key has 256 bits of entropy, so a database copy cannot be searched for it,
and a plain hash keeps the per-request lookup to one indexed query. No server key is mixed in, so
rotating ``DJANGO_SECRET_KEY`` does not invalidate every token.
"""

from __future__ import annotations

import hashlib
import secrets

# A recognisable prefix: a leaked key is easy to grep for in code and logs.
API_TOKEN_PREFIX = "dnb_"  # noqa: S105 — a prefix, not a secret


def new_key(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
