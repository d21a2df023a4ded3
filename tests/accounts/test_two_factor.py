"""Two-factor login (docs/accounts.md#two-factor; DESIGN §8.8): enrolment by QR code and a typed
code, login with a code or a recovery code (once), turning it off, the token API's ``otp``, and
django-axes counting wrong codes."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import ApiToken
from tests.accounts.support import PASSWORD
from tests.accounts.two_factor_support import code_of, enrol, next_code

# No django-otp back-off between tries in these tests (django-axes' lockout is what is tested).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_throttle")]
TOKEN_URL = "/api/v1/auth/token/"


@pytest.fixture
def no_throttle(settings):
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    settings.OTP_STATIC_THROTTLE_FACTOR = 0


def _login(username: str, password: str = PASSWORD) -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, response.content
    client.landed = response["Location"]  # type: ignore[attr-defined]
    return client


def test_enrolment_by_qr_code_and_a_typed_code(carol):
    client = _login("carol")
    page = client.get("/accounts/two-factor/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "<svg" in text and 'id="totp-secret"' in text and "<?xml" not in text
    device = TOTPDevice.objects.get(user=carol, confirmed=False)
    assert device.config_url.startswith("otpauth://totp/Deniable%3Acarol?")
    wrong = client.post("/accounts/two-factor/", {"action": "enrol", "code": "000000"})
    assert wrong.status_code == 400 and not TOTPDevice.objects.filter(confirmed=True).exists()
    done = client.post("/accounts/two-factor/", {"action": "enrol", "code": code_of(device)})
    assert done.status_code == 200
    codes = StaticToken.objects.filter(device__user=carol).values_list("token", flat=True)
    assert len(codes) == 10 and all(c in done.content.decode() for c in codes)
    assert client.get("/surveys/").status_code == 200  # this session is past the second factor


def test_login_needs_the_code_then_a_recovery_code_works_once(carol):
    device, recovery = enrol(carol)
    client = _login("carol")
    assert client.landed == "/accounts/two-factor/verify/?next=%2Fsurveys%2F"
    gated = client.get("/surveys/")  # not logged in before the code
    assert gated.status_code == 302 and gated["Location"].startswith("/accounts/login/")
    assert client.post("/accounts/two-factor/verify/", {"code": "123456"}).status_code == 400
    ok = client.post("/accounts/two-factor/verify/", {"code": code_of(device), "next": "/surveys/"})
    assert ok.status_code == 302 and ok["Location"] == "/surveys/"
    assert client.get("/surveys/").status_code == 200

    again = _login("carol")
    assert again.post("/accounts/two-factor/verify/", {"code": recovery[0]}).status_code == 302
    assert again.get("/surveys/").status_code == 200
    third = _login("carol")
    assert third.post("/accounts/two-factor/verify/", {"code": recovery[0]}).status_code == 400
    assert third.get("/surveys/").status_code == 302  # used up: still at the gate


def test_turning_it_off_lets_the_password_alone_log_in(carol):
    device, _ = enrol(carol)
    client = _login("carol")
    client.post("/accounts/two-factor/verify/", {"code": code_of(device)})
    assert client.post("/accounts/two-factor/", {"action": "disable"}).status_code == 302
    assert not TOTPDevice.objects.filter(user=carol).exists()
    assert not StaticToken.objects.filter(device__user=carol).exists()
    assert _login("carol").get("/surveys/").status_code == 200


@override_settings(DENIABLE_OTP_STAFF=True)
def test_staff_must_enrol_and_cannot_turn_it_off(admin):
    client = _login("root", "root-secure-pw-2024")
    gated = client.get("/accounts/invitations/")
    assert gated.status_code == 302 and gated["Location"].startswith("/accounts/two-factor/?")
    page = client.get("/accounts/two-factor/").content.decode()
    assert "required for your account" in page
    device = TOTPDevice.objects.get(user=admin)
    client.post("/accounts/two-factor/", {"action": "enrol", "code": code_of(device)})
    assert client.get("/accounts/invitations/").status_code == 200
    client.post("/accounts/two-factor/", {"action": "disable"})
    assert TOTPDevice.objects.filter(user=admin, confirmed=True).exists()


@override_settings(DENIABLE_OTP_REQUIRED=True)
def test_the_setting_requires_it_of_every_researcher(carol):
    client = _login("carol")
    assert client.get("/surveys/").status_code == 302
    r = _token({"username": "carol", "password": PASSWORD})
    assert r.status_code == 401 and r.json()["error"] == "otp_required"


def _token(body):
    return Client().post(TOKEN_URL, body, content_type="application/json")


def test_the_token_api_asks_for_the_code(carol):
    device, recovery = enrol(carol)
    body = {"username": "carol", "password": PASSWORD}
    missing = _token(body)
    assert missing.status_code == 401 and missing.json()["error"] == "otp_required"
    wrong = _token({**body, "otp": "000000"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "otp_invalid"
    assert not ApiToken.objects.exists()
    assert _token({**body, "otp": code_of(device)}).status_code == 200
    assert _token({**body, "otp": recovery[1]}).status_code == 200
    assert _token({**body, "otp": recovery[1]}).status_code == 401  # a recovery code, once
    assert ApiToken.objects.filter(user=carol).count() == 2


def test_wrong_codes_count_towards_the_lockout(carol):
    device, _ = enrol(carol)
    body = {"username": "carol", "password": PASSWORD}
    for _ in range(2):
        assert _token({**body, "otp": "000000"}).status_code == 401
    client = _login("carol")
    for _ in range(2):
        assert client.post("/accounts/two-factor/verify/", {"code": "000000"}).status_code == 400
    locked = client.post("/accounts/two-factor/verify/", {"code": "000000"})
    assert locked.status_code == 429  # the 5th failure, page and API counted together
    assert client.get("/surveys/").status_code == 302  # logged out
    # Locked: even the right password and code are refused until the cool-off.
    assert _token({**body, "otp": next_code(device)}).status_code == 429


def test_the_deploy_check_fails_without_a_second_factor_for_staff(settings):
    from django.core.checks import run_checks

    settings.DENIABLE_OTP_STAFF = False
    errors = [m for m in run_checks(include_deployment_checks=True) if m.id == "accounts.E001"]
    assert len(errors) == 1 and errors[0].is_serious()
    settings.DENIABLE_OTP_STAFF = True
    assert not [m for m in run_checks(include_deployment_checks=True) if m.id == "accounts.E001"]
