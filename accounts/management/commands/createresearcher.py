"""``manage.py createresearcher NAME --password PW [--email E] [--update]``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.urls import reverse

from accounts import two_factor
from accounts.services import api_token_create


class Command(BaseCommand):
    help = (
        "Create a researcher account (or update it with --update) and print a new API token "
        "(none for an account that needs two-factor login)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--password", required=True)
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--update", action="store_true", help="Reset the password/email if the user exists."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        username, password = options["username"], options["password"]
        if not password:
            raise CommandError("--password must not be empty.")
        with transaction.atomic():
            user = User.objects.filter(username=username).first()
            if user is not None and not options["update"]:
                raise CommandError(f"User {username!r} exists (use --update to reset it).")
            # The same rules as the login form's password change (AUTH_PASSWORD_VALIDATORS):
            # researcher accounts guard sensitive data, a weak password is refused here too.
            candidate = user or User(username=username, email=options["email"])
            try:
                validate_password(password, candidate)
            except ValidationError as exc:
                raise CommandError("Password refused: " + " ".join(exc.messages)) from exc
            if user is None:
                user = User.objects.create_user(
                    username=username, email=options["email"], password=password
                )
                verb = "Created"
            else:
                user.set_password(password)
                if options["email"]:
                    user.email = options["email"]
                user.is_active = True
                user.save()
                verb = "Updated"
            # Keys are stored as digests, so an existing one cannot be printed again: every run
            # issues a new token (named after the command; list and revoke on /accounts/tokens/),
            # unless the account needs a second factor, which this command has not seen: such a
            # token would be refused (docs/accounts.md#tokens-and-the-second-factor).
            issued = (
                None
                if two_factor.needs_code(user)
                else api_token_create(user=user, name="createresearcher")
            )
        self.stdout.write(f"{verb} researcher {username!r}.")
        if issued is None:
            self.stdout.write(
                "No API token was issued: this account needs two-factor login. The researcher "
                "sets it up on the site, then creates a token there or with "
                f"POST {reverse('api-auth-token')} and a code."
            )
            return
        self.stdout.write(
            f"API token: {issued.key} (expires {issued.token.expires:%Y-%m-%d}; shown once)"
        )
