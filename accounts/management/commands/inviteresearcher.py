"""``manage.py inviteresearcher EMAIL [--days N] [--base-url URL] [--no-email]``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email

from accounts.mail import email_configured
from accounts.services import signup_invitation_create
from accounts.views import invitation_link, send_invitation
from deniable.errors import InvalidInput


class Command(BaseCommand):
    help = (
        "Issue a one-time, expiring sign-up link for a new researcher: printed, and emailed "
        "unless --no-email (or no email backend is configured)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--days", type=int, default=None, help="1 to 90 (default 7).")
        parser.add_argument(
            "--base-url",
            default="http://127.0.0.1:8000",
            help="The server's address as researchers reach it (the link starts with it).",
        )
        parser.add_argument("--no-email", action="store_true", help="Print the link only.")

    def handle(self, *args: Any, **options: Any) -> None:
        email = options["email"].strip()
        try:
            validate_email(email)
        except ValidationError as exc:
            raise CommandError(f"Not an email address: {email!r}.") from exc
        try:
            issued = signup_invitation_create(email=email, created_by=None, days=options["days"])
        except InvalidInput as exc:
            raise CommandError(" ".join(m for ms in exc.errors.values() for m in ms)) from exc
        link = invitation_link(None, issued.token, options["base_url"])
        days = (issued.invitation.expires - issued.invitation.created).days
        until = f"{issued.invitation.expires:%Y-%m-%d %H:%M} UTC"
        self.stdout.write(f"Sign-up link for {email} (one use, until {until}):")
        self.stdout.write(link)
        if options["no_email"]:
            return
        if not email_configured():
            self.stdout.write(
                "Not emailed: no email backend is configured (send the link yourself)."
            )
            return
        try:
            send_invitation(email=email, link=link, days=days)
        except Exception as exc:
            raise CommandError(f"The link above is valid but the email failed: {exc}") from exc
        self.stdout.write(f"Emailed to {email}.")
