"""Page forms: sign-up, a new API token, a sign-up invitation."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxValueValidator

from accounts.inputs import DEFAULT_TOKEN_NAME, MAX_NAME


class SignupForm(UserCreationForm):
    """Username and password under Django's validators (AUTH_PASSWORD_VALIDATORS); the email
    comes from the invitation, or is asked for in open sign-up."""

    invite = forms.CharField(required=False, widget=forms.HiddenInput, max_length=200)
    email = forms.EmailField(required=False, max_length=254)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def __init__(self, *args: Any, invited_email: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.invited_email = invited_email
        if invited_email is None:
            self.fields["email"].required = True
        # UserCreationForm (Django 5.1+) offers "usable_password"; researchers always set one.
        self.fields.pop("usable_password", None)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or self.cleaned_data
        # Before the password validators run (ModelForm's post-clean, after this): they compare
        # the password with the email too (UserAttributeSimilarityValidator).
        if self.invited_email is not None:
            self.instance.email = self.invited_email
        else:
            self.instance.email = cleaned.get("email") or ""
        return cleaned


class TokenForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME, required=False, initial=DEFAULT_TOKEN_NAME)
    expires_in_days = forms.IntegerField(min_value=1)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        longest = settings.DENIABLE_API_TOKEN_MAX_DAYS
        days = self.fields["expires_in_days"]
        days.initial = settings.DENIABLE_API_TOKEN_DAYS
        days.widget.attrs["max"] = str(longest)
        days.validators.append(MaxValueValidator(longest))


class InvitationForm(forms.Form):
    email = forms.EmailField(max_length=254)
    days = forms.IntegerField(min_value=1, max_value=90)
    send_email = forms.BooleanField(required=False, initial=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["days"].initial = settings.DENIABLE_SIGNUP_INVITATION_DAYS
