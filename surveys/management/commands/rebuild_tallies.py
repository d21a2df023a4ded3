"""``manage.py rebuild_tallies [SLUG ...]``: recount counters from the stored submissions."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.models import Submission, Survey
from surveys.services.tallies import tallies_rebuild

BAR = 30  # characters of the progress bar


class Command(BaseCommand):
    help = (
        "Replace the tallies of the given surveys (all with no slug) by a recount of their "
        "submissions: after a restore or a bulk load. Submissions arriving meanwhile wait for it "
        "(on PostgreSQL, those to every survey), and none is lost or counted twice. A progress "
        "bar on stderr shows the submissions read (--no-progress to hide it)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def _bar(self, slug: str, total: int, start: float) -> Any:
        def show(done: int) -> None:
            share = min(1.0, done / total) if total else 1.0
            filled = int(share * BAR)
            elapsed = time.perf_counter() - start
            left = elapsed / share - elapsed if share > 0 else 0.0
            self.stderr.write(
                f"\r{slug}: [{'#' * filled}{'.' * (BAR - filled)}] {share:4.0%} "
                f"{done:,}/{total:,} submissions, {elapsed:.0f} s, ~{left:.0f} s left",
                ending="",
            )
            self.stderr.flush()

        return show

    def handle(self, *args: Any, **options: Any) -> None:
        slugs = options["slugs"]
        surveys = Survey.objects.filter(slug__in=slugs) if slugs else Survey.objects.all()
        missing = set(slugs) - set(surveys.values_list("slug", flat=True))
        if missing:
            raise CommandError(f"No such survey: {', '.join(sorted(missing))}.")
        for survey in surveys.order_by("pk"):
            start = time.perf_counter()
            progress = None
            if not options["no_progress"]:
                # The total for the bar: one indexed count, cheap beside the recount itself.
                total = Submission.objects.filter(survey=survey, sealed=True).count()
                progress = self._bar(survey.slug, total, start)
            rows = tallies_rebuild(survey=survey, progress=progress)
            elapsed = time.perf_counter() - start
            if progress is not None:
                self.stderr.write("")
            self.stdout.write(f"{survey.slug}: {rows} tally rows in {elapsed:.2f} s")
