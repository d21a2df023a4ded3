"""``deniable.sqlite_turn.sqlite_group_commit``: on a SQLite file, the submissions a worker process
queues while another process holds the writers' turn are committed together — and each caller
still gets exactly its own outcome.

The attacks, each a scenario run in a subprocess on a temporary file database (the suite's own
connection is PostgreSQL, or SQLite in memory in CI's second pass, where nothing groups):

* a group must really form (else nothing is gained): six threads queue while the turn is held
  elsewhere, and one thread then runs all six in one transaction, each survey's tail settled once;
* one respondent's failure (a used invitation) must not undo the others' stored rows, nor leave
  its own row behind, and its error must reach *its* caller, in its caller's language, although
  another thread ran it;
* a failure after the rows were written (settling the tail, or the commit) must leave no row of
  the group and no caller told "stored": a 2xx is sent only for a committed row.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from deniable.sqlite_turn import sqlite_group_commit, sqlite_group_commit_applies

ROOT = Path(__file__).resolve().parents[2]
N = 6

SCENARIO = """
import fcntl, json, os, sys, threading, time, django
django.setup()
from django.db import connection
from django.utils import translation
from django.utils.translation import gettext as _
from deniable import sqlite_turn
from deniable.errors import Conflict, ErrorCode

scenario, n = sys.argv[1], int(sys.argv[2])
with connection.cursor() as c:
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER)")
    c.execute("CREATE TABLE settled (k INTEGER, n INTEGER)")
name = connection.settings_dict["NAME"]
connection.close()
# Another worker process's hold on the turn: a second open file description of the turn file.
held = os.open(f"{name}.writer-turn", os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(held, fcntl.LOCK_EX)
ran_on, in_transaction, results, sizes, late = [], [], {}, [], []
run_group = sqlite_turn._run_group

def recording(group):
    try:
        run_group(group)
    finally:
        sizes.append(len(group))  # with the works that joined it

sqlite_turn._run_group = recording
if scenario == "limit":
    sqlite_turn.GROUP_LIMIT = 2

def work(i):
    def run():
        ran_on.append(threading.get_ident())
        in_transaction.append(connection.in_atomic_block)
        with connection.cursor() as c:
            c.execute("INSERT INTO t VALUES (%s, %s)", [i, i % 2])
        if scenario == "joins" and i == 0:  # a respondent arrives while the group runs
            late.append(threading.Thread(target=caller, args=(1,)))
            late[0].start()
            deadline = time.monotonic() + 30
            while not sqlite_turn._queued and time.monotonic() < deadline:
                time.sleep(0.01)
        if (scenario == "one_fails" and i == 1) or scenario == "alone_fails":
            raise Conflict(_("This invitation has already been used."), code=ErrorCode.TOKEN_USED)
        return 100 + i
    return run

def settle(k):
    def run():
        if scenario == "settle_fails":
            raise RuntimeError("settling failed")
        with connection.cursor() as c:
            c.execute("INSERT INTO settled SELECT %s, count(*) FROM t WHERE k = %s", [k, k])
    return run

def caller(i):
    with translation.override("es" if i == 1 else "en"):
        try:
            value = sqlite_turn.sqlite_group_commit(work(i), key=i % 2, settle=settle(i % 2))
            results[i] = ["ok", value, threading.get_ident()]
        except Exception as exc:
            results[i] = [type(exc).__name__, str(exc), threading.get_ident()]
        finally:
            connection.close()

threads = [threading.Thread(target=caller, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
deadline = time.monotonic() + 30
while len(sqlite_turn._queued) < n and time.monotonic() < deadline:
    time.sleep(0.01)
queued = len(sqlite_turn._queued)
fcntl.flock(held, fcntl.LOCK_UN)
# The late caller is appended by work 0 while the group runs: join it only after the first
# threads, when that list is complete (`threads + late`, built before, could miss it and print
# before its result was written).
for t in threads:
    t.join(60)
for t in late:
    t.join(60)
with connection.cursor() as c:
    c.execute("SELECT id FROM t ORDER BY id")
    rows = [r[0] for r in c.fetchall()]
    c.execute("SELECT k, n FROM settled ORDER BY k")
    settled = [list(r) for r in c.fetchall()]
print(json.dumps({"queued": queued, "sizes": sizes, "ran_on": sorted(set(ran_on)),
                  "in_transaction": in_transaction,
                  "results": results, "rows": rows, "settled": settled}))
"""


def _sqlite_env(var: Path, **env: str) -> dict[str, str]:
    """The embedded set-up on ``var``/db.sqlite3: no Redis, no DATABASE_URL of the suite's."""
    environ = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    environ.update(
        DJANGO_SETTINGS_MODULE="deniable.settings.base",
        DATABASE_URL=f"sqlite:///{var / 'db.sqlite3'}",
        DENIABLE_VAR_DIR=str(var),
        **env,
    )
    return environ


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A var directory whose SQLite file is migrated, made once for the module: migrating took
    ~4.5 s of each test that needs the schema. Tests run on copies; their scripts' own
    ``migrate`` then finds nothing to do."""
    var = tmp_path_factory.mktemp("migrated-sqlite")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=_sqlite_env(var),
        capture_output=True,
        timeout=300,
        check=True,
    )
    return var


def _on_a_sqlite_file(
    tmp_path: Path, code: str, *args: str, migrated: Path | None = None, **env: str
) -> dict[str, Any]:
    """Run ``code`` in a new process on a fresh SQLite file (no Redis: the embedded set-up), a
    copy of ``migrated``'s if given; returns the JSON of its last line."""
    if migrated is not None:
        # Its process has exited, so SQLite has folded the WAL back into the file.
        shutil.copytree(migrated, tmp_path, dirs_exist_ok=True)
    environ = _sqlite_env(tmp_path, **env)
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _scenario(tmp_path: Path, name: str, n: int = N) -> dict[str, Any]:
    result = _on_a_sqlite_file(tmp_path, SCENARIO, name, str(n))
    result["results"] = {int(k): v for k, v in result["results"].items()}
    return result


def test_waiting_submissions_are_committed_together_each_survey_settled_once(tmp_path) -> None:
    r = _scenario(tmp_path, "all_succeed")
    assert r["queued"] == N  # all six waited while the turn was held elsewhere
    assert r["sizes"] == [N]  # one group
    assert len(r["ran_on"]) == 1  # one thread ran them all
    assert r["in_transaction"] == [True] * N  # each inside the group's transaction
    assert r["rows"] == list(range(N))
    # Each caller got its own work's value, on its own thread.
    assert {i: v[:2] for i, v in r["results"].items()} == {i: ["ok", 100 + i] for i in range(N)}
    assert len({v[2] for v in r["results"].values()}) == N
    # Settled once per key, after every work of the group (3 rows of each key were there).
    assert r["settled"] == [[0, N // 2], [1, N // 2]]


def test_a_submission_queued_while_the_group_runs_joins_it_before_the_commit(tmp_path) -> None:
    r = _scenario(tmp_path, "joins", n=1)
    assert r["sizes"] == [2] and len(r["ran_on"]) == 1
    assert r["rows"] == [0, 1]
    assert {i: v[:2] for i, v in r["results"].items()} == {0: ["ok", 100], 1: ["ok", 101]}
    assert r["settled"] == [[0, 1], [1, 1]]  # both keys settled after both works


def test_a_group_takes_at_most_its_limit_and_every_caller_is_served(tmp_path) -> None:
    """GROUP_LIMIT = 2 with five waiting: groups of 2, 2, 1 in arrival order, none left behind
    (a leader whose own work is not in the first group keeps leading until it is)."""
    r = _scenario(tmp_path, "limit", n=5)
    assert r["sizes"] == [2, 2, 1]
    assert r["rows"] == list(range(5))
    assert {i: v[:2] for i, v in r["results"].items()} == {i: ["ok", 100 + i] for i in range(5)}


def test_one_failing_submission_rolls_back_alone_and_its_caller_gets_its_error(tmp_path) -> None:
    r = _scenario(tmp_path, "one_fails")
    assert len(r["ran_on"]) == 1
    assert r["rows"] == [i for i in range(N) if i != 1]  # its row gone, the others stored
    assert r["results"][1][:2] == ["Conflict", "Esta invitación ya se ha usado."]  # its language
    assert all(r["results"][i][:2] == ["ok", 100 + i] for i in range(N) if i != 1)
    # Key 1 was still settled (3 and 5 stored): its count excludes the rolled-back row.
    assert r["settled"] == [[0, N // 2], [1, N // 2 - 1]]


def test_alone_in_its_group_a_failing_submission_rolls_back_without_a_savepoint(tmp_path) -> None:
    """A group of one runs its work without a savepoint (two statements fewer): its error must
    still roll its row back, skip the settling and reach its caller (in English: work 0)."""
    r = _scenario(tmp_path, "alone_fails", n=1)
    assert r["queued"] == 1 and r["in_transaction"] == [True]
    assert r["rows"] == [] and r["settled"] == []
    assert r["results"][0][:2] == ["Conflict", "This invitation has already been used."]


def test_a_failure_after_the_rows_were_written_stores_none_and_tells_everyone(tmp_path) -> None:
    r = _scenario(tmp_path, "settle_fails")
    assert r["rows"] == [] and r["settled"] == []
    assert all(v[:2] == ["RuntimeError", "settling failed"] for v in r["results"].values())


def test_outside_a_sqlite_file_it_does_not_apply_and_refuses_to_run() -> None:
    """The suite's own connection (PostgreSQL, or SQLite in memory in CI's second pass)."""
    assert connection.vendor == "postgresql" or "memory" in str(
        connection.settings_dict.get("NAME")
    )
    assert not sqlite_group_commit_applies()
    with pytest.raises(RuntimeError, match="SQLite file"):
        sqlite_group_commit(lambda: 1, key=0, settle=lambda: None)


# The product's own submission path on a migrated SQLite file: 13 respondents of three surveys
# queue while the turn is held elsewhere, then are committed as one group (k = 3).
PRODUCT = """
import fcntl, json, os, threading, time, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.db import connection
from deniable import sqlite_turn
from deniable.errors import DomainError
from surveys.models import Invitation, Submission
from surveys.selectors.surveys import survey_respondent_count, unsealed_count
from testsupport import factories as f

owner = f.make_user()
surveys = {
    "open": f.make_survey(owner),
    "capped": f.make_survey(owner, f.survey_body(response_cap=3)),
    "invite": f.make_survey(owner, f.survey_body(access="invite")),
}
tokens = f.make_invitations(surveys["invite"], 2)
calls = [("open", None)] * 5 + [("capped", None)] * 5 + [("invite", tokens[0])] * 2
calls += [("invite", tokens[1])]
connection.close()
held = os.open(f"{connection.settings_dict['NAME']}.writer-turn", os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(held, fcntl.LOCK_EX)
outcomes, ran_on = [], set()

def respond(name, token):
    try:
        outcome = f.submit(surveys[name], token=token)
        outcomes.append([name, token, outcome.status])
    except DomainError as exc:
        outcomes.append([name, token, str(exc.code)])
    finally:
        connection.close()

threads = [threading.Thread(target=respond, args=call) for call in calls]
for t in threads:
    t.start()
deadline = time.monotonic() + 30
while len(sqlite_turn._queued) < len(calls) and time.monotonic() < deadline:
    time.sleep(0.01)
queued = len(sqlite_turn._queued)
fcntl.flock(held, fcntl.LOCK_UN)
for t in threads:
    t.join(60)
state = {
    name: {
        "rows": Submission.objects.filter(survey=s).count(),
        "published": survey_respondent_count(survey=s),
        "unsealed": unsealed_count(survey=s),
    }
    for name, s in surveys.items()
}
used = sorted(Invitation.objects.filter(survey=surveys["invite"]).values_list("used", "sealed"))
print(json.dumps({"queued": queued, "outcomes": outcomes, "state": state, "used": used,
                  "tokens": tokens}))
"""


@pytest.mark.slow
def test_the_submission_path_in_one_group_keeps_caps_invitations_and_batches(
    tmp_path, migrated
) -> None:
    r = _on_a_sqlite_file(tmp_path, PRODUCT, migrated=migrated, DENIABLE_ESTIMATE_BATCH="3")
    assert r["queued"] == 13
    by: dict[tuple[str, str | None], list[str]] = {}
    for name, token, status in r["outcomes"]:
        by.setdefault((name, token), []).append(status)
    t0, t1 = r["tokens"]
    assert by[("open", None)] == ["accepted"] * 5
    # The cap counts the group's earlier rows: exactly 3 of 5 accepted.
    assert sorted(by[("capped", None)]) == ["accepted"] * 3 + ["response_cap_reached"] * 2
    # One token twice in one group: accepted exactly once.
    assert sorted(by[("invite", t0)]) == ["accepted", "token_used"]
    assert by[("invite", t1)] == ["accepted"]
    # Rows stored = accepted; each survey's tail settled in the same transaction: ≥ k published
    # (all of the tail, in one batch), < k left unsealed and unpublished.
    assert r["state"] == {
        "open": {"rows": 5, "published": 5, "unsealed": 0},
        "capped": {"rows": 3, "published": 3, "unsealed": 0},
        "invite": {"rows": 2, "published": 0, "unsealed": 2},
    }
    assert r["used"] == [[True, False], [True, False]]  # spent, not sealed before their batch


# An adversarial review's four cases (stop 41). Each: a migrated file, the turn held by another
# open file description until the group has queued, then (where named) a reader's SHARED lock
# that makes the group's COMMIT fail with "database is locked" after a 1 s busy timeout.
FAILURES = """
import errno, fcntl, json, os, sys, threading, time, sqlite3, django
django.setup()
from django.conf import settings
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.db import connection
from django.views.debug import ExceptionReporter
from deniable import sqlite_turn
from surveys.models import Submission
from surveys.webhooks import services as webhook_services
from surveys.webhooks.models import Webhook
from testsupport import factories as f

case = sys.argv[1]
owner = f.make_user()
invite = f.make_survey(owner, f.survey_body(access="invite"))
capped = f.make_survey(owner, f.survey_body(response_cap=1))
hooked, other = f.make_survey(owner), f.make_survey(owner)
tokens = f.make_invitations(invite, 3)
name = connection.settings_dict["NAME"]
settings.DATABASES["default"]["OPTIONS"]["timeout"] = 1
connection.close()
out, ids = {}, {}

def respond(i, survey, token=None):
    ids[i] = f.new_id()
    try:
        out[i] = ["ok", f.submit(survey, submission_id=str(ids[i]), token=token).status, []]
    except Exception as exc:
        # What Django's debug page (and an error reporter with locals) would show this caller.
        frames = ExceptionReporter(None, type(exc), exc, exc.__traceback__).get_traceback_data()
        shown = " ".join(str(v) for fr in frames["frames"] for (_, v) in fr.get("vars", []))
        others = [j for j, t in enumerate(tokens) if j != i and t in shown]
        out[i] = [type(exc).__name__, str(getattr(exc, "code", "")), others]
    finally:
        connection.close()

def group(calls, busy):
    held = os.open(f"{name}.writer-turn", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    threads = []
    for n, call in enumerate(calls):
        threads.append(threading.Thread(target=respond, args=call))
        threads[-1].start()
        while len(sqlite_turn._queued) < n + 1:
            time.sleep(0.01)
    reader = sqlite3.connect(name, isolation_level=None)
    if busy:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM surveys_submission").fetchall()
    fcntl.flock(held, fcntl.LOCK_UN)
    for t in threads:
        t.join(60)
    if busy:
        reader.execute("ROLLBACK")
    reader.close()

result = {}
if case == "leak":
    group([(i, invite, tokens[i]) for i in range(3)], busy=True)
elif case == "refusal":
    group([(0, capped), (1, capped), (2, other)], busy=True)
    result["retry_of_1"] = f.submit(capped, submission_id=str(ids[1])).status
elif case == "orphan":
    real = sqlite_turn._descriptor
    def flaky(path, calls=[0]):
        calls[0] += 1
        if calls[0] == 1:
            raise OSError(errno.EMFILE, "Too many open files")
        return real(path)
    sqlite_turn._descriptor = flaky
    respond("A", other)
    result["queued_after_A"] = len(sqlite_turn._queued)
    respond("B", other)
elif case == "on_commit":
    Webhook.objects.create(survey=hooked, url="https://example.org/h", secret="x" * 64)
    def enqueue(*, delivery_ids):
        raise RuntimeError("can't start new thread")
    webhook_services.deliveries_enqueue = enqueue
    group([(0, hooked), (1, hooked), (2, hooked), (3, other)], busy=False)
stored = {str(i): Submission.objects.filter(pk=s).exists() for i, s in ids.items()}
result.update(out=out, stored=stored)
print(json.dumps(result))
"""


def _failure(tmp_path: Path, migrated: Path, case: str) -> dict[str, Any]:
    return _on_a_sqlite_file(
        tmp_path, FAILURES, case, migrated=migrated, DENIABLE_ESTIMATE_BATCH="3"
    )


@pytest.mark.slow
def test_a_failed_group_shows_no_caller_another_callers_token(tmp_path, migrated) -> None:
    r = _failure(tmp_path, migrated, "leak")
    assert [v[0] for v in r["out"].values()] == ["OperationalError"] * 3  # the commit failed
    assert all(v[2] == [] for v in r["out"].values())  # before: [[1, 2], [0, 2], [0, 1]]
    assert not any(r["stored"].values())


@pytest.mark.slow
def test_no_refusal_rests_on_a_row_that_was_rolled_back(tmp_path, migrated) -> None:
    r = _failure(tmp_path, migrated, "refusal")
    assert r["stored"] == {"0": False, "1": True, "2": False}  # 1 only by its retry, below
    assert all(v[0] == "OperationalError" for v in r["out"].values())  # not "cap reached" for 1
    assert r["retry_of_1"] == "accepted"


@pytest.mark.slow
def test_a_caller_told_error_never_has_its_row_committed_later(tmp_path, migrated) -> None:
    r = _failure(tmp_path, migrated, "orphan")
    assert r["out"]["A"][0] == "OSError" and r["out"]["B"][:2] == ["ok", "accepted"]
    assert r["queued_after_A"] == 0
    assert r["stored"] == {"A": False, "B": True}


@pytest.mark.slow
def test_stored_submissions_are_accepted_even_if_an_after_commit_hook_fails(
    tmp_path, migrated
) -> None:
    r = _failure(tmp_path, migrated, "on_commit")
    assert all(r["stored"].values())
    assert all(v[:2] == ["ok", "accepted"] for v in r["out"].values())
