"""Password reset by email and password change (docs/accounts.md#passwords): Django's views with
this project's templates, a rate limit, and an honest page when the server cannot send email."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client, override_settings

from tests.accounts.support import PASSWORD

pytestmark = pytest.mark.django_db

RESET = "/accounts/password/reset/"
NEW_PASSWORD = "a-brand-new-pw-2024"


def _reset_link() -> str:
    assert len(mail.outbox) == 1
    found = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", mail.outbox[0].body)
    assert found, mail.outbox[0].body
    return found.group(1)


def test_the_login_page_links_to_the_reset(db):
    page = Client().get("/accounts/login/").content.decode()
    assert f'href="{RESET}"' in page and "Forgot your password?" in page


def test_reset_by_email_sets_a_new_password_and_the_link_works_once(carol):
    client = Client()
    form = client.get(RESET)
    assert form.status_code == 200 and "for 2 hours" in form.content.decode()
    sent = client.post(RESET, {"email": "carol@example.org"})
    assert sent.status_code == 302 and sent["Location"] == "/accounts/password/reset/sent/"
    assert "Check your email" in client.get(sent["Location"]).content.decode()
    message = mail.outbox[0]
    assert message.to == ["carol@example.org"] and message.subject == "Reset your Deniable password"
    assert '"carol"' in message.body and "for 2 hours" in message.body
    link = _reset_link()

    # Django moves the token into the session and redirects to a tokenless URL.
    opened = client.get(link)
    assert opened.status_code == 302
    page = client.get(opened["Location"])
    assert "Choose a new password" in page.content.decode()
    weak = client.post(opened["Location"], {"new_password1": "short", "new_password2": "short"})
    assert weak.status_code == 200 and "This password is too short" in weak.content.decode()
    done = client.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/password/reset/done/"
    assert "Your new password is set" in client.get(done["Location"]).content.decode()
    carol.refresh_from_db()
    assert carol.check_password(NEW_PASSWORD)

    # The link is dead now.
    again = Client()
    reopened = again.get(link, follow=True)
    assert "This reset link does not work" in reopened.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_email(carol):
    response = Client().post(RESET, {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"].endswith("/reset/sent/")
    assert mail.outbox == []


def test_a_bad_address_names_the_field(carol):
    response = Client().post(RESET, {"email": "not-an-address"})
    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()


@override_settings(DENIABLE_RESET_RATE_LIMIT_PER_EMAIL=2)
def test_reset_requests_are_rate_limited_per_address(carol):
    for _ in range(2):
        assert Client().post(RESET, {"email": "carol@example.org"}).status_code == 302
    limited = Client().post(RESET, {"email": "Carol@Example.org"})
    assert limited.status_code == 429
    assert "too many password-reset requests" in limited.content.decode()
    assert len(mail.outbox) == 2
    # Another address is not limited by carol's count.
    assert Client().post(RESET, {"email": "other@example.org"}).status_code == 302


@override_settings(EMAIL_BACKEND="accounts.mail.NotConfiguredBackend")
def test_without_an_email_backend_the_page_says_so(carol):
    page = Client().get(RESET).content.decode()
    assert "This server cannot send email yet" in page
    response = Client().post(RESET, {"email": "carol@example.org"})
    assert response.status_code == 503
    assert "Ask your administrator to reset the password" in response.content.decode()


def test_change_password_needs_the_old_one(carol):
    client = Client()
    client.force_login(carol)
    account = client.get("/accounts/").content.decode()
    assert 'href="/accounts/password/change/"' in account and 'href="/accounts/tokens/"' in account
    url = "/accounts/password/change/"
    wrong = client.post(
        url,
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert wrong.status_code == 200
    assert "Your old password was entered incorrectly" in wrong.content.decode()
    done = client.post(
        url,
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/password/change/done/"
    assert client.get("/accounts/").status_code == 200  # still signed in
    carol.refresh_from_db()
    assert carol.check_password(NEW_PASSWORD)


def test_anonymous_visitors_cannot_change_a_password(db):
    response = Client().get("/accounts/password/change/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@override_settings(PASSWORD_RESET_TIMEOUT=90 * 60)
def test_the_pages_say_how_long_the_link_works(carol):
    assert "the link works once, for 90 minutes." in Client().get(RESET).content.decode()
    Client().post(RESET, {"email": "carol@example.org"})
    assert "(it works once, for 90 minutes)" in mail.outbox[0].body
