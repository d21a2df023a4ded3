"""Helpers of the two-factor tests: a user's current TOTP code and an enrolled researcher."""

from __future__ import annotations

from typing import Any

from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice


def code_of(device: TOTPDevice, *, offset: int = 0) -> str:
    """The 6-digit code the app shows now (``offset`` steps of 30 s away)."""
    code = totp(device.bin_key, step=device.step, t0=device.t0, digits=6, drift=offset)
    return f"{code:06d}"


def enrol(user: Any) -> tuple[TOTPDevice, list[str]]:
    """A confirmed app and two recovery codes, as the set-up page leaves them."""
    device = TOTPDevice.objects.create(user=user, name="app", confirmed=True)
    static = StaticDevice.objects.create(user=user, name="Recovery codes", confirmed=True)
    codes = ["recov11111", "recov22222"]
    for c in codes:
        StaticToken.objects.create(device=static, token=c)
    return device, codes


def next_code(device: TOTPDevice) -> str:
    """A code not used yet: django-otp refuses a TOTP code at or before the last one used."""
    import time

    device.refresh_from_db()
    now = int((time.time() - device.t0) // device.step)
    return code_of(device, offset=1) if device.last_t >= now else code_of(device)
