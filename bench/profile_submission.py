"""Where a submission's CPU goes: cProfile of N in-process ``POST …/responses/`` (issue 24).

Not a registered benchmark: a diagnostic. The requests go through Django's whole WSGI handler
(every middleware, the URL resolver, the view, the service, the batch publications) against the
database of ``DATABASE_URL``, with ``time.process_time`` as the profiler's clock, so time spent
waiting for PostgreSQL is not counted (the database's CPU is ``http_throughput``'s "db" column).
The statements each submission sends are counted through Django's cursor wrapper
(``pg_stat_statements`` would need a server restart on the shared machine).

``DATABASE_URL=… .venv/bin/python -m bench.profile_submission [--n 400] [--top 25]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import re
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400, help="profiled submissions")
    parser.add_argument("--top", type=int, default=25, help="rows of the profile to print")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--save", default="", help="write the raw profile here (pstats)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deniable.settings.base")
    os.environ["DENIABLE_SUBMISSION_RATE_LIMIT"] = "0"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from bench.fixtures import ANSWERS, create_open_survey

    survey = create_open_survey(title_suffix=f" (profile {time.strftime('%H:%M:%S')})")
    path = f"/api/v1/surveys/{survey.slug}/responses/"
    client = Client(REMOTE_ADDR="127.0.0.1")

    def post() -> int:
        body = {"submission_id": str(uuid.uuid4()), "randomizer": "browser", "answers": ANSWERS}
        return client.post(path, json.dumps(body), content_type="application/json").status_code

    for _ in range(50):  # warm-up: imports, caches, the connection
        assert post() == 201
    statements: Counter[str] = Counter()

    def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        # Savepoint names are unique per use: counted as one statement kind.
        statements[re.sub(r'"s\d+_x\d+"', '"…"', " ".join(sql.split()))[:90]] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        profile = cProfile.Profile(time.process_time)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        profile.enable()
        codes = Counter(post() for _ in range(args.n))
        profile.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"{args.n} submissions: {dict(codes)}; profiled CPU {1000 * cpu / args.n:.2f} ms/req, ")
    print(f"wall {1000 * wall / args.n:.2f} ms/req (the profiler inflates both)\n")
    print(f"statements per submission ({sum(statements.values()) / args.n:.2f} in all):")
    for sql, n in statements.most_common():
        print(f"  {n / args.n:6.3f}  {sql}")
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    if args.save:
        profile.dump_stats(args.save)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
