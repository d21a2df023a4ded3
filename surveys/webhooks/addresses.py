"""Which webhook URLs may be called (SSRF): checked when a hook is created AND before each send.

A URL is refused unless its scheme is ``https`` (``http`` too when ``DEBUG`` or
``DENIABLE_WEBHOOK_ALLOW_HTTP``), it has a host and no user or password, and EVERY address its host
resolves to is a public unicast one — not private, loopback, link-local, multicast, reserved,
unspecified, shared (100.64/10) or an IPv4-mapped/NAT64 form of those — unless
``DENIABLE_WEBHOOK_ALLOW_PRIVATE`` is on (a test receiver on 127.0.0.1, an intranet service).

Checking at creation only is not enough: the name may later resolve elsewhere (DNS rebinding).
The sender therefore resolves again right before sending, checks the addresses, and connects to
the checked address itself (:mod:`surveys.webhooks.delivery`), so no second lookup can swap it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class RefusedURL(ValueError):
    """The URL may not be called; the message says why, in words for the researcher."""


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (a checked address) and what to ask for."""

    scheme: str
    host: str  # the name, for the Host header and TLS
    port: int
    address: str  # the checked IP address to connect to
    path: str  # path and query


def allow_private() -> bool:
    return bool(getattr(settings, "DENIABLE_WEBHOOK_ALLOW_PRIVATE", False))


def allow_http() -> bool:
    return bool(settings.DEBUG or getattr(settings, "DENIABLE_WEBHOOK_ALLOW_HTTP", False))


def public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A public unicast address (not one of the ranges the module names)."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return public(mapped)
        if address in ipaddress.IPv6Network("64:ff9b::/96"):  # NAT64: the IPv4 in its tail
            return public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def split(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of an acceptable URL; raises :class:`RefusedURL`."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RefusedURL("Not a valid URL.") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise RefusedURL("Must be an https:// URL.")
    if scheme == "http" and not allow_http():
        raise RefusedURL("Must be an https:// URL (http is allowed only in development).")
    if not parts.hostname:
        raise RefusedURL("Must name a host.")
    if parts.username is not None or parts.password is not None:
        raise RefusedURL("Must not hold a user name or password.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80), path


def resolve(url: str) -> Target:
    """The URL checked and its host resolved to an address that may be called; raises
    :class:`RefusedURL` (an unknown host, or any address of it refused)."""
    scheme, host, port, path = split(url)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise RefusedURL("The host name does not resolve.") from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not addresses:
        raise RefusedURL("The host name does not resolve.")
    # Every address, not only the first: a name resolving to one public and one private address
    # could be connected to the private one by the next lookup.
    if not allow_private() and not all(public(a) for a in addresses):
        raise RefusedURL(
            "Resolves to a private, loopback, link-local or otherwise non-public address."
        )
    return Target(scheme, host, port, str(addresses[0]), path)
