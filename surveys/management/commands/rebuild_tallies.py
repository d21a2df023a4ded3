"""``manage.py rebuild_tallies [SLUG ...]``: recount counters from the stored submissions."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.models import Survey
from surveys.services.tallies import tallies_rebuild


class Command(BaseCommand):
    help = (
        "Replace the tallies of the given surveys (all with no slug) by a recount of their "
        "submissions: after a restore or a bulk load. Submissions arriving meanwhile wait for it "
        "(on PostgreSQL, those to every survey), and none is lost or counted twice."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*")

    def handle(self, *args: Any, **options: Any) -> None:
        slugs = options["slugs"]
        surveys = Survey.objects.filter(slug__in=slugs) if slugs else Survey.objects.all()
        missing = set(slugs) - set(surveys.values_list("slug", flat=True))
        if missing:
            raise CommandError(f"No such survey: {', '.join(sorted(missing))}.")
        for survey in surveys.order_by("pk"):
            start = time.perf_counter()
            rows = tallies_rebuild(survey=survey)
            elapsed = time.perf_counter() - start
            self.stdout.write(f"{survey.slug}: {rows} tally rows in {elapsed:.2f} s")
