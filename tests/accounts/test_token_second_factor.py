"""Attack: an API token that never passed the second factor the account needs now
(docs/accounts.md#two-factor, "Tokens and the second factor").

The token exchange asks for the code of an account that needs one, and the two-factor gate leaves
token requests to the token. So a token issued while the account needed no code (a researcher
before being made staff, staff before ``DENIABLE_OTP_STAFF`` was on, anyone before turning
two-factor login on) must not reach the API once the account needs one: it would open staff-only
endpoints such as the site's audit log with a password alone. The check is made when the token
authenticates (the user's row as it is then), so no way of changing ``is_staff`` escapes it: the
admin's form, ``User.save()`` in a management command, or ``QuerySet.update``, which sends no
signal.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.oidc import SSO_MFA_KEY
from accounts.services import api_token_create
from tests.accounts.support import PASSWORD
from tests.accounts.two_factor_support import code_of, enrol, next_code
from tests.security.admin_forms import change_form_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_throttle")]
AUDIT = "/api/v1/audit/"  # staff only
SURVEYS = "/api/v1/surveys/"
TOKEN = "/api/v1/auth/token/"
TOKENS = "/api/v1/auth/tokens/"
BOSS_PASSWORD = "boss-secure-pw-2024"
ROOT_PASSWORD = "root-secure-pw-2024"


@pytest.fixture
def no_throttle(settings):
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    settings.OTP_STATIC_THROTTLE_FACTOR = 0


def _as(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _exchange(username: str, password: str, **extra: Any) -> str:
    """A key from ``POST /api/v1/auth/token/``, as a script gets one."""
    body = {"username": username, "password": password, **extra}
    response = APIClient().post(TOKEN, body, format="json")
    assert response.status_code == 200, response.content
    return str(response.json()["token"])


def _refused(response: Any, needs: str) -> None:
    """401 ``otp_required`` (as the token exchange and the gate say it), naming what is needed."""
    assert response.status_code == 401, (response.status_code, response.content)
    body = response.json()
    assert body["error"] == "otp_required", body
    assert needs in body["detail"], body


def _refused_token(response: Any, needs: str) -> None:
    """:func:`_refused`, as the token's authentication answers it (with its challenge)."""
    _refused(response, needs)
    assert response["WWW-Authenticate"] == "Token"


def _verified_client(user: Any, password: str, device: TOTPDevice) -> Client:
    """A browser logged in with the password and the app's code."""
    client = Client()
    landed = client.post("/accounts/login/", {"username": user.username, "password": password})
    assert landed.status_code == 302
    done = client.post("/accounts/two-factor/verify/", {"code": next_code(device)})
    assert done.status_code == 302, done.content
    return client


@pytest.fixture
def boss(db: None) -> Any:
    """A superuser with two-factor login, who changes other accounts in the admin."""
    user = get_user_model().objects.create_superuser("boss", "boss@example.org", BOSS_PASSWORD)
    device, _ = enrol(user)
    return user, device


def _promote_in_the_admin(boss: Any, user: Any) -> None:
    admin_user, device = boss
    client = _verified_client(admin_user, BOSS_PASSWORD, device)
    url = f"/admin/auth/user/{user.pk}/change/"
    form = client.get(url)
    assert form.status_code == 200
    data = change_form_data(form)
    data["is_staff"] = "on"
    saved = client.post(url, data)
    assert saved.status_code == 302, saved.content
    user.refresh_from_db()
    assert user.is_staff


def _promote_with_save(boss: Any, user: Any) -> None:
    call_command(
        "shell",
        command=(
            "from django.contrib.auth.models import User\n"
            f"u = User.objects.get(pk={user.pk})\n"
            "u.is_staff = True\n"
            "u.save()\n"
        ),
        stdout=io.StringIO(),
    )
    user.refresh_from_db()
    assert user.is_staff


def _promote_with_update(boss: Any, user: Any) -> None:
    # No save(), no signal: only a check made when the token authenticates sees this.
    get_user_model().objects.filter(pk=user.pk).update(is_staff=True)


@override_settings(DENIABLE_OTP_STAFF=True)
@pytest.mark.parametrize(
    "promote", [_promote_in_the_admin, _promote_with_save, _promote_with_update]
)
def test_a_researcher_made_staff_cannot_use_an_older_token(carol, boss, promote):
    key = _exchange("carol", PASSWORD)  # no second factor: a researcher needs none
    assert _as(key).get(SURVEYS).status_code == 200
    assert _as(key).get(AUDIT).status_code == 403  # not staff yet

    promote(boss, carol)

    for path in (AUDIT, SURVEYS, TOKENS):
        _refused_token(_as(key).get(path), "set it up")
    # The way in is the way every staff member takes: set it up, then a token with the code.
    device, _ = enrol(carol)
    _refused_token(_as(key).get(AUDIT), "create a new token")
    fresh = _exchange("carol", PASSWORD, otp=code_of(device))
    assert _as(fresh).get(AUDIT).status_code == 200
    _refused_token(_as(key).get(AUDIT), "create a new token")  # the old one stays refused


def test_staff_who_never_set_it_up_keep_no_token_from_before_the_setting(admin):
    with override_settings(DENIABLE_OTP_STAFF=False):
        key = _exchange("root", ROOT_PASSWORD)
        assert _as(key).get(AUDIT).status_code == 200
    with override_settings(DENIABLE_OTP_STAFF=True):
        _refused_token(_as(key).get(AUDIT), "set it up")
        # Nor can they get another one without it (DESIGN §8.8).
        response = APIClient().post(
            TOKEN, {"username": "root", "password": ROOT_PASSWORD}, format="json"
        )
        _refused(response, "set it up")


def test_a_site_that_requires_it_refuses_every_older_token(carol):
    key = _exchange("carol", PASSWORD)
    with override_settings(DENIABLE_OTP_REQUIRED=True):
        _refused_token(_as(key).get(SURVEYS), "set it up")
    assert _as(key).get(SURVEYS).status_code == 200  # the setting, read at each request


def test_turning_it_on_retires_the_tokens_issued_without_it(carol):
    before = _exchange("carol", PASSWORD, name="before")
    script = api_token_create(user=carol, name="script").key  # e.g. createresearcher's
    device, recovery = enrol(carol)
    for key in (before, script):
        _refused_token(_as(key).get(SURVEYS), "create a new token")

    with_code = _exchange("carol", PASSWORD, otp=code_of(device), name="with code")
    with_recovery = _exchange("carol", PASSWORD, otp=recovery[0], name="with recovery")
    client = _verified_client(carol, PASSWORD, device)
    page = client.post("/accounts/tokens/", {"name": "from the page", "expires_in_days": "30"})
    assert page.status_code == 200
    from_page = page.context["new_key"]
    for key in (with_code, with_recovery, from_page):
        assert _as(key).get(SURVEYS).status_code == 200, key

    listed = {t["name"]: t["second_factor"] for t in _as(with_code).get(TOKENS).json()}
    assert listed == {
        "before": False,
        "script": False,
        "with code": True,
        "with recovery": True,
        "from the page": True,
    }
    shown = re.findall(
        r"<td data-second-factor>(\w+)<", client.get("/accounts/tokens/").content.decode()
    )
    assert sorted(shown) == ["no", "no", "yes", "yes", "yes"]
    recovery_device = StaticDevice.objects.get(user=carol)
    stored = {t.name: t.second_factor for t in ApiToken.objects.filter(user=carol)}
    assert stored == {
        "before": "",
        "script": "",
        "with code": device.persistent_id,
        "with recovery": recovery_device.persistent_id,
        "from the page": device.persistent_id,  # the device that verified the session
    }


@override_settings(DENIABLE_OTP_STAFF=True)
def test_removing_the_device_retires_the_tokens_issued_with_it(admin):
    device, _ = enrol(admin)
    key = _exchange("root", ROOT_PASSWORD, otp=code_of(device))
    assert _as(key).get(AUDIT).status_code == 200
    # Lost phone: an administrator deletes the devices in the admin (docs/accounts.md). While
    # the recovery codes are left the account is still enrolled; then it has no second factor.
    TOTPDevice.objects.filter(user=admin).delete()
    _refused_token(_as(key).get(AUDIT), "create a new token")
    StaticDevice.objects.filter(user=admin).delete()
    _refused_token(_as(key).get(AUDIT), "set it up")
    # Set up again: the token issued with the removed app stays refused, as a session verified
    # with it does (django-otp's OTPMiddleware); a new one with the new app works.
    new_device = TOTPDevice.objects.create(user=admin, name="new phone", confirmed=True)
    _refused_token(_as(key).get(AUDIT), "create a new token")
    fresh = _exchange("root", ROOT_PASSWORD, otp=code_of(new_device))
    assert _as(fresh).get(AUDIT).status_code == 200


def test_an_unconfirmed_device_verifies_no_token(carol):
    device, _ = enrol(carol)
    key = _exchange("carol", PASSWORD, otp=code_of(device))
    TOTPDevice.objects.filter(pk=device.pk).update(confirmed=False)
    _refused_token(_as(key).get(SURVEYS), "create a new token")  # the recovery codes remain


def test_turning_it_off_and_on_again_retires_the_tokens_of_the_first_device(carol):
    device, _ = enrol(carol)
    without = api_token_create(user=carol, name="older").key
    with_code = _exchange("carol", PASSWORD, otp=code_of(device))
    client = _verified_client(carol, PASSWORD, device)
    assert client.post("/accounts/two-factor/", {"action": "disable"}).status_code == 302
    # Off, and not required: the account needs no second factor, so no token needs one.
    for key in (without, with_code):
        assert _as(key).get(SURVEYS).status_code == 200
    # On again with a new app: neither the older token nor the first app's is good now.
    page = client.get("/accounts/two-factor/")
    assert page.status_code == 200
    pending = TOTPDevice.objects.get(user=carol, confirmed=False)
    client.post("/accounts/two-factor/", {"action": "enrol", "code": code_of(pending)})
    for key in (without, with_code):
        _refused_token(_as(key).get(SURVEYS), "create a new token")


def test_a_token_from_a_session_the_provider_verified_holds_while_that_is_trusted(admin):
    """Single sign-on whose provider asserted multi-factor authentication passes the gate where
    ``DENIABLE_OIDC_TRUST_MFA`` is on (accounts.two_factor.session_verified); a token made in such
    a session carries that, and only while it is trusted. The session is set up here as the
    callback leaves it (tests/accounts/test_oidc.py runs the real flow)."""
    with override_settings(DENIABLE_OTP_STAFF=True, DENIABLE_OIDC_TRUST_MFA=True):
        client = Client()
        client.force_login(admin)
        session = client.session
        session[SSO_MFA_KEY] = True
        session.save()
        page = client.post("/accounts/tokens/", {"name": "sso", "expires_in_days": "30"})
        assert page.status_code == 200
        key = page.context["new_key"]
        assert ApiToken.objects.get(user=admin).second_factor == "sso"
        assert _as(key).get(AUDIT).status_code == 200
    with override_settings(DENIABLE_OTP_STAFF=True, DENIABLE_OIDC_TRUST_MFA=False):
        _refused_token(_as(key).get(AUDIT), "set it up")


def test_a_page_session_without_the_code_makes_no_token(carol):
    """The tokens page is behind the gate: a session made by the password alone (the admin's
    login page would make one for staff; here the code page is left unfinished) cannot reach it."""
    enrol(carol)
    client = Client()
    client.post("/accounts/login/", {"username": "carol", "password": PASSWORD})
    response = client.post("/accounts/tokens/", {"name": "x", "expires_in_days": "30"})
    assert response.status_code == 302
    assert not ApiToken.objects.exists()
