"""Every registered admin, walked per survey status (issue 21, item 1; DESIGN §8.5): which fields
its change form (and each inline) lets a superuser edit, and which actions it offers. The table
below is the whole answer: an admin registered later without an entry here fails the test, so a
new way to edit a survey's design, budget or texts cannot slip in unnoticed.

Once a survey has opened, nothing in its change form is editable and its questions inline is
read-only; the only action that changes it is "close", through the API's own service. Records
(releases, ledger, tallies, invitations, tokens) are read-only or delete-only in every status.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.auth.models import Group
from django.test import RequestFactory
from django.utils import timezone

from accounts.models import ApiToken, SignupInvitation
from privacy.models import LedgerEntry, Release
from surveys.models import Invitation, Survey, Tally
from testsupport.factories import (
    make_api_token,
    make_release,
    make_release_survey,
    make_survey,
    make_user,
    reload,
    survey_body,
)

pytestmark = pytest.mark.django_db

STATUSES = ("add", "draft", "open", "closed", "archived")
NOTHING: frozenset[str] = frozenset()
DRAFT_SURVEY_FIELDS = frozenset(
    {
        "title",
        "description",
        "access",
        "closes_at",
        "response_cap",
        "planned_n",
        "budget_epsilon",
        "budget_delta",
        "languages",
        "translations",
    }
)
QUESTION_FIELDS = frozenset(
    {"position", "key", "kind", "text", "design", "options", "min_value", "max_value"}
)
SURVEY_ACTIONS = frozenset({"delete_selected", "close_surveys"})
USER_FIELDS = frozenset(
    {
        "username",
        "password",
        "first_name",
        "last_name",
        "email",
        "is_active",
        "is_staff",
        "is_superuser",
        "groups",
        "user_permissions",
        "last_login",
        "date_joined",
    }
)


def _same(value: Any) -> dict[str, Any]:
    return dict.fromkeys(STATUSES, value)


# admin (app_label.model) → status → (editable fields, {inline model: editable fields}, actions).
# "add" is the add form (no object). A survey-independent admin has the same row in every status.
EXPECTED: dict[str, dict[str, tuple[frozenset[str], dict[str, frozenset[str]], frozenset[str]]]] = {
    "surveys.survey": {
        "add": (
            DRAFT_SURVEY_FIELDS | {"owner"},
            {"surveys.question": QUESTION_FIELDS},
            SURVEY_ACTIONS,
        ),
        "draft": (DRAFT_SURVEY_FIELDS, {"surveys.question": QUESTION_FIELDS}, SURVEY_ACTIONS),
        "open": (NOTHING, {"surveys.question": NOTHING}, SURVEY_ACTIONS),
        "closed": (NOTHING, {"surveys.question": NOTHING}, SURVEY_ACTIONS),
        "archived": (NOTHING, {"surveys.question": NOTHING}, SURVEY_ACTIONS),
    },
    "surveys.tally": _same((NOTHING, {}, NOTHING)),
    "surveys.invitation": _same((NOTHING, {}, NOTHING)),
    "privacy.release": _same((NOTHING, {"privacy.ledgerentry": NOTHING}, NOTHING)),
    "privacy.ledgerentry": _same((NOTHING, {}, NOTHING)),
    "accounts.apitoken": _same((NOTHING, {}, frozenset({"delete_selected"}))),
    "accounts.signupinvitation": _same((NOTHING, {}, frozenset({"delete_selected"}))),
    # Two-factor devices: removed (lost phone), never edited; the key is not shown.
    "otp_totp.totpdevice": _same((NOTHING, {}, frozenset({"delete_selected"}))),
    "otp_static.staticdevice": _same((NOTHING, {}, frozenset({"delete_selected"}))),
    # Django's own: no survey data in them.
    "auth.user": {
        **_same((USER_FIELDS, {}, frozenset({"delete_selected"}))),
        "add": (
            frozenset({"username", "password1", "password2", "usable_password"}),
            {},
            frozenset({"delete_selected"}),
        ),
    },
    "auth.group": _same((frozenset({"name", "permissions"}), {}, frozenset({"delete_selected"}))),
    # django-axes: login attempts, read-only except deletion.
    "axes.accessattempt": _same(
        (NOTHING, {}, frozenset({"delete_selected", "cleanup_expired_attempts"}))
    ),
    "axes.accesslog": _same((NOTHING, {}, frozenset({"delete_selected"}))),
    "axes.accessfailurelog": _same((NOTHING, {}, frozenset({"delete_selected"}))),
}


def _editable(model_admin: Any, request: Any, obj: Any) -> frozenset[str]:
    if obj is None and not model_admin.has_add_permission(request, *_parent(model_admin, obj)):
        return NOTHING
    if obj is not None and not model_admin.has_change_permission(request, obj):
        return NOTHING
    fields = flatten_fieldsets(model_admin.get_fieldsets(request, obj))
    return frozenset(fields) - set(model_admin.get_readonly_fields(request, obj))


def _parent(model_admin: Any, obj: Any) -> tuple[Any, ...]:
    return (obj,) if isinstance(model_admin, admin.options.InlineModelAdmin) else ()


def _label(model: Any) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


@pytest.fixture
def world(django_user_model) -> dict[str, dict[type, Any]]:
    """An instance of each registered model per survey status (None for "add")."""
    root = django_user_model.objects.create_superuser("root", password="root-password-123")
    owner = make_user("owner")
    objects: dict[str, dict[type, Any]] = {"add": {}}
    draft = make_survey(owner, survey_body(), open_=False)
    objects["draft"] = {Survey: draft}
    for status in ("open", "closed", "archived"):
        survey = make_release_survey(owner, epsilon=2.0, respondents=12)
        Invitation.objects.create(survey=survey, digest=f"{status:0<64}")
        release = make_release(survey, owner, {"mechanism": "laplace", "epsilon": 0.5})
        if status != "open":
            Survey.objects.filter(pk=survey.pk).update(status=status)
        objects[status] = {
            Survey: reload(survey),
            Release: release,
            LedgerEntry: LedgerEntry.objects.get(release=release),
            Tally: Tally.objects.filter(survey=survey).first(),
            Invitation: Invitation.objects.filter(survey=survey).first(),
        }
    make_api_token(owner)
    SignupInvitation.objects.create(
        email="x@example.org", digest="d" * 64, created_by=root, expires=timezone.now()
    )
    Group.objects.create(name="staff")
    shared = {
        ApiToken: ApiToken.objects.first(),
        SignupInvitation: SignupInvitation.objects.first(),
        django_user_model: owner,
        Group: Group.objects.first(),
    }
    for status in ("draft", "open", "closed", "archived"):
        for model, obj in shared.items():
            objects[status].setdefault(model, obj)
    objects["root"] = {django_user_model: root}
    return objects


def test_every_admin_is_in_the_table() -> None:
    registered = {_label(model) for model in admin.site._registry}
    assert registered == set(EXPECTED), (
        "an admin was registered or removed: add it to EXPECTED with what it may edit per status"
    )


def test_editable_fields_inlines_and_actions_per_status(world, django_user_model) -> None:
    request = RequestFactory().get("/")
    request.user = world["root"][django_user_model]
    mismatches = []
    for model, model_admin in admin.site._registry.items():
        label = _label(model)
        for status in STATUSES:
            if status == "add":
                obj = None
            else:
                obj = world[status].get(model)
                if obj is None:  # e.g. a draft survey has no release: nothing to open
                    continue
            fields, inlines, actions = EXPECTED[label][status]
            got_fields = _editable(model_admin, request, obj)
            got_inlines = {
                _label(inline.model): _editable(inline, request, obj)
                for inline in model_admin.get_inline_instances(request, obj)
            }
            if obj is None:  # the add form: inlines are shown only when the model may be added
                inlines = {k: v for k, v in inlines.items() if k in got_inlines}
            got_actions = frozenset(model_admin.get_actions(request))
            if (got_fields, got_inlines, got_actions) != (fields, inlines, actions):
                mismatches.append((label, status, got_fields, got_inlines, got_actions))
    assert not mismatches, "\n".join(map(str, mismatches))


def test_the_close_action_only_closes(world, django_user_model) -> None:
    """Running every survey action on a survey of each status changes nothing frozen: the close
    action turns open into closed and leaves every other status alone."""
    request = RequestFactory().post("/")
    request.user = world["root"][django_user_model]
    request._messages = _Messages()
    model_admin = admin.site._registry[Survey]
    for status in ("draft", "open", "closed", "archived"):
        survey = world[status][Survey]
        before = {f.attname: getattr(survey, f.attname) for f in Survey._meta.concrete_fields}
        model_admin.close_surveys(request, Survey.objects.filter(pk=survey.pk))
        after = {
            f.attname: getattr(reload(survey), f.attname) for f in Survey._meta.concrete_fields
        }
        expected_status = "closed" if status == "open" else status
        assert after == {**before, "status": expected_status}


class _Messages:
    def add(self, level: int, message: str, extra_tags: str = "") -> None:
        pass


FROZEN_INJECTION = {
    "status": "draft",
    "budget_epsilon": "99",
    "budget_delta": "0.5",
    "title": "Hijacked",
    "description": "Hijacked",
    "languages": '["en", "es"]',
    "translations": '{"es": {"title": "x"}}',
    "slug": "hijacked",
}


def _survey_state(survey: Survey) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    row = {f.attname: getattr(reload(survey), f.attname) for f in Survey._meta.concrete_fields}
    questions = list(survey.questions.order_by("pk").values())
    return row, questions


def test_posting_every_change_form_and_action_changes_nothing_frozen(world, django_user_model):
    """The real admin, through HTTP: every registered admin's change form for every opened
    survey's objects, posted back with the frozen fields (and every question inline field)
    rewritten, and every action run on every opened survey's objects: nothing frozen moves."""
    from django.test import Client
    from django.urls import reverse

    from tests.security.admin_forms import change_form_data

    client = Client()
    client.force_login(world["root"][django_user_model])
    for status in ("open", "closed", "archived"):
        survey = world[status][Survey]
        before = _survey_state(survey)
        for model, model_admin in admin.site._registry.items():
            obj = world[status].get(model)
            if obj is None:
                continue
            info = (model._meta.app_label, model._meta.model_name)
            url = reverse("admin:{}_{}_change".format(*info), args=[obj.pk])
            page = client.get(url)
            assert page.status_code == 200, (url, page.status_code)
            data = change_form_data(page)
            data.update(FROZEN_INJECTION)
            for name in list(data):
                if name.startswith("questions-") and name.endswith(("-design", "-text")):
                    data[name] = '{"name": "warner", "p": 0.999}'
            client.post(url, data)
            for action in model_admin.get_actions(client.get(url).wsgi_request):
                changelist = reverse("admin:{}_{}_changelist".format(*info))
                client.post(changelist, {"action": action, "_selected_action": [obj.pk]})
            row, questions = _survey_state(survey)
            # The close action is the one change: open may become closed, nothing else moves.
            allowed = {"open", "closed"} if status == "open" else {status}
            assert row["status"] in allowed, (model, status, row["status"])
            assert {**row, "status": None} == {**before[0], "status": None}, (model, status)
            assert questions == before[1], (model, status)
