"""The SSRF rules of webhook URLs (surveys/webhooks/addresses.py)."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from surveys.webhooks import addresses
from surveys.webhooks.addresses import RefusedURL, resolve

REFUSED = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # the cloud metadata service
    "100.64.0.1",  # shared address space (carrier NAT)
    "0.0.0.0",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "ff02::1",
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "::ffff:10.0.0.1",
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
]


@pytest.mark.parametrize("address", REFUSED)
def test_non_public_addresses_are_not_public(address):
    assert not addresses.public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_are_public(address):
    assert addresses.public(ipaddress.ip_address(address))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "169.254.169.254", "10.0.0.7"])
def test_private_hosts_are_refused_unless_allowed(settings, host):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(RefusedURL, match="non-public"):
        resolve(f"https://{host}/hook")
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = True
    assert resolve(f"https://{host}:8443/hook?x=1").path == "/hook?x=1"


def test_a_name_resolving_to_a_private_address_among_public_ones_is_refused(settings, monkeypatch):
    """DNS can answer several addresses: every one must be public."""
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = False

    def two(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", two)  # DNS itself cannot be run here
    with pytest.raises(RefusedURL):
        resolve("https://rebinding.example/hook")


def test_the_checked_address_is_the_one_connected_to(settings, monkeypatch):
    settings.DENIABLE_WEBHOOK_ALLOW_PRIVATE = False

    def public_only(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port))]

    monkeypatch.setattr(socket, "getaddrinfo", public_only)
    target = resolve("https://hooks.example/a")
    assert (target.host, target.address, target.port) == ("hooks.example", "93.184.216.34", 443)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.org/x", "https"),
        ("file:///etc/passwd", "https"),
        ("https:///nohost", "host"),
        ("https://user:pw@example.org/", "user name"),
        ("https://example.org:99999/", "valid"),
        ("not a url", "https"),
    ],
)
def test_malformed_urls_are_refused(url, why):
    with pytest.raises(RefusedURL, match=why):
        addresses.split(url)


def test_http_only_in_development(settings):
    settings.DEBUG = False
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = False
    with pytest.raises(RefusedURL, match="https"):
        addresses.split("http://example.org/hook")
    settings.DENIABLE_WEBHOOK_ALLOW_HTTP = True
    assert addresses.split("http://example.org/hook") == ("http", "example.org", 80, "/hook")


def test_an_unknown_host_is_refused(settings):
    with pytest.raises(RefusedURL, match="resolve"):
        resolve("https://no-such-host.invalid/hook")
