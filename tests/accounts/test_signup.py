"""Sign-up by invitation (docs/accounts.md#sign-up): one-time, expiring links issued by an
administrator (page and command); open sign-up only with DENIABLE_OPEN_SIGNUP; rate limited."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.utils import timezone

from accounts import keys
from accounts.models import SignupInvitation
from accounts.services import signup_invitation_create

pytestmark = pytest.mark.django_db

SIGNUP = "/accounts/signup/"
GOOD_PASSWORD = "a-long-enough-pw-2024"
User = get_user_model()


def _invite(email: str = "dana@example.org", **kwargs: Any) -> str:
    return signup_invitation_create(email=email, created_by=None, **kwargs).token


def _post(token: str | None, username: str = "dana", password: str = GOOD_PASSWORD, **extra: Any):
    data = {"username": username, "password1": password, "password2": password, **extra}
    if token is not None:
        data["invite"] = token
    return Client().post(SIGNUP, data)


def test_an_invitation_link_creates_a_researcher_once(db):
    token = _invite()
    page = Client().get(SIGNUP, {"invite": token})
    assert page.status_code == 200
    text = page.content.decode()
    assert "dana@example.org" in text and f'value="{token}"' in text
    assert 'name="email"' not in text  # the address is the invitation's

    client = Client()
    done = client.post(
        SIGNUP,
        {
            "invite": token,
            "username": "dana",
            "password1": GOOD_PASSWORD,
            "password2": GOOD_PASSWORD,
        },
    )
    assert done.status_code == 302 and done["Location"] == "/surveys/"
    user = User.objects.get(username="dana")
    assert user.email == "dana@example.org" and user.check_password(GOOD_PASSWORD)
    assert not user.is_staff
    assert client.get("/surveys/").status_code == 200  # signed in
    invitation = SignupInvitation.objects.get()
    assert invitation.used is not None and invitation.used_by == user
    assert invitation.digest == keys.digest(token) and token not in str(invitation.__dict__)

    again = _post(token, username="eve")
    assert again.status_code == 400
    assert "already been used" in again.content.decode()
    assert not User.objects.filter(username="eve").exists()


def test_an_expired_link_is_refused_and_says_so(db):
    token = _invite()
    SignupInvitation.objects.update(expires=timezone.now() - timedelta(minutes=1))
    for response in (Client().get(SIGNUP, {"invite": token}), _post(token)):
        assert response.status_code == 400
        assert "This invitation link expired on" in response.content.decode()
    assert not User.objects.filter(username="dana").exists()


def test_a_bad_token_is_refused(db):
    _invite()
    for response in (Client().get(SIGNUP, {"invite": "not-a-token"}), _post("not-a-token")):
        assert response.status_code == 400
        assert "This invitation link is not valid" in response.content.decode()
    assert User.objects.count() == 0


def test_password_validators_and_username_rules_apply(db, carol):
    token = _invite()
    weak = _post(token, password="short")
    assert weak.status_code == 400
    assert "This password is too short" in weak.content.decode()
    similar = _post(token, password="dana@example.org1")  # similar to the email
    assert similar.status_code == 400 and "too similar" in similar.content.decode()
    taken = _post(token, username="Carol")
    assert taken.status_code == 400
    assert "A user with that username already exists." in taken.content.decode()
    mismatch = Client().post(
        SIGNUP,
        {"invite": token, "username": "dana", "password1": GOOD_PASSWORD, "password2": "other"},
    )
    assert mismatch.status_code == 400 and "didn’t match" in mismatch.content.decode()
    # None of these used the invitation up.
    assert SignupInvitation.objects.get().used is None
    assert _post(token).status_code == 302


def test_without_an_invitation_sign_up_is_closed_by_default(db):
    page = Client().get(SIGNUP)
    assert page.status_code == 200
    assert "Sign-up on this server is by invitation only" in page.content.decode()
    assert "<form" not in page.content.decode().split("<main", 1)[1]
    refused = _post(None, email="x@example.org")
    assert refused.status_code == 200 and not User.objects.filter(username="dana").exists()
    login = Client().get("/accounts/login/").content.decode()
    assert (
        "ask an administrator for a sign-up link" in login
        and 'href="/accounts/signup/"' not in login
    )


@override_settings(DENIABLE_OPEN_SIGNUP=True)
def test_open_sign_up_asks_for_an_email_and_creates_the_account(db):
    login = Client().get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' in login
    page = Client().get(SIGNUP).content.decode()
    assert 'name="email"' in page
    no_email = _post(None)
    assert no_email.status_code == 400 and "This field is required." in no_email.content.decode()
    done = _post(None, email="frank@example.org", username="frank")
    assert done.status_code == 302
    assert User.objects.get(username="frank").email == "frank@example.org"


@override_settings(DENIABLE_SIGNUP_RATE_LIMIT=3)
def test_sign_up_posts_are_rate_limited(db):
    for _ in range(3):
        assert _post("bad-token").status_code == 400
    limited = _post(_invite())
    assert limited.status_code == 429 and limited["Retry-After"] == "3600"
    assert "too many sign-up attempts" in limited.content.decode()
    assert not User.objects.filter(username="dana").exists()


def test_signed_in_visitors_go_to_their_account(carol):
    client = Client()
    client.force_login(carol)
    response = client.get(SIGNUP)
    assert response.status_code == 302 and response["Location"] == "/accounts/"


# --- the administrator's side -----------------------------------------------------------------


def test_staff_issue_links_on_the_page_and_they_are_emailed(admin, carol):
    client = Client()
    client.force_login(admin)
    page = client.get("/accounts/invitations/")
    assert page.status_code == 200
    created = client.post(
        "/accounts/invitations/", {"email": "gina@example.org", "days": "3", "send_email": "on"}
    )
    assert created.status_code == 200
    link = re.search(r'id="signup-link" href="([^"]+)"', created.content.decode()).group(1)
    assert link.startswith("http://testserver/accounts/signup/?invite=")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["gina@example.org"]
    assert link in mail.outbox[0].body and "for 3 days" in mail.outbox[0].body
    invitation = SignupInvitation.objects.get()
    assert invitation.created_by == admin
    assert timedelta(days=2, hours=23) < invitation.expires - timezone.now() <= timedelta(days=3)
    # Bad input names the field.
    bad = client.post("/accounts/invitations/", {"email": "nope", "days": "91"})
    assert bad.status_code == 400
    assert "Enter a valid email address." in bad.content.decode()
    assert "less than or equal to 90" in bad.content.decode()
    # Revoking an unused link makes it unusable.
    token = link.split("invite=", 1)[1]
    assert client.post(f"/accounts/invitations/{invitation.pk}/revoke/").status_code == 302
    assert "This invitation link is not valid" in _post(token).content.decode()
    # A researcher who is not staff cannot reach the page.
    researcher = Client()
    researcher.force_login(carol)
    assert researcher.get("/accounts/invitations/").status_code == 403
    assert (
        researcher.post(
            "/accounts/invitations/", {"email": "x@example.org", "days": "3"}
        ).status_code
        == 403
    )


def test_inviteresearcher_prints_and_emails_a_working_link(db):
    out = io.StringIO()
    call_command(
        "inviteresearcher",
        "hal@example.org",
        "--days",
        "2",
        "--base-url",
        "https://rr.example/",
        stdout=out,
    )
    text = out.getvalue()
    link = re.search(r"https://rr\.example/accounts/signup/\?invite=\S+", text).group(0)
    assert "Emailed to hal@example.org." in text
    assert len(mail.outbox) == 1 and link in mail.outbox[0].body
    assert "it works once, for 2 days" in mail.outbox[0].body
    token = link.split("invite=", 1)[1]
    assert _post(token, username="hal").status_code == 302
    assert User.objects.get(username="hal").email == "hal@example.org"

    quiet = io.StringIO()
    call_command("inviteresearcher", "ida@example.org", "--no-email", stdout=quiet)
    assert len(mail.outbox) == 1 and "invite=" in quiet.getvalue()
    with pytest.raises(CommandError, match="Not an email address"):
        call_command("inviteresearcher", "not-an-email", stdout=io.StringIO())
    with pytest.raises(CommandError, match="from 1 to 90"):
        call_command("inviteresearcher", "j@example.org", "--days", "0", stdout=io.StringIO())
