"""The layout rules of issue 23 (docs/architecture.md#layout): tests mirror modules, and no module
of the apps grows past 400 lines."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("dpcore", "accounts", "surveys", "privacy", "deniable")
MAX_LINES = 400

# Modules that need no test of their own: Django and Celery wiring (apps, URL confs, admin
# registrations, settings, WSGI, the Celery app, log formatting), exercised by every page and API
# test that goes through them, and management commands (tests/<app>/test_commands.py).
NO_MIRROR = re.compile(
    r"(^|/)(apps|urls|wsgi|celery|gunicorn_logging|admin)\.py$|/settings/|/management/commands/"
)

# Tested today, but by topic (tests/surveys/multi/, tests/surveys/respondent/…) rather than at the
# mirrored path: the state before issue 23. Shrink only — when a module gets its mirrored test,
# take it off (the test below says so); a module not listed here must have its mirrored test.
NOT_YET_MIRRORED = {
    # Added by the issue 23 merge (tested by topic: tests/surveys/kinds/test_<kind>*.py,
    # tests/dpcore/local/designs/, tests/privacy/, tests/accounts/, tests/audit/); to mirror next.
    "dpcore/central/release_noise.py",
    "dpcore/central/release_parts.py",
    "dpcore/central/release_sums.py",
    "dpcore/local/designs/_binary.py",
    "dpcore/local/designs/_registry.py",
    "dpcore/local/designs/cheater_detection.py",
    "dpcore/local/designs/crosswise.py",
    "dpcore/local/designs/forced_response.py",
    "dpcore/local/designs/k_rr.py",
    "dpcore/local/designs/two_probability.py",
    "dpcore/local/designs/unrelated_question.py",
    "dpcore/local/designs/warner.py",
    "dpcore/local/grid.py",
    "dpcore/local/grouped.py",
    "accounts/two_factor_gate.py",
    "accounts/two_factor_views.py",
    "surveys/api/invitation_views.py",
    "surveys/audit_details.py",
    "surveys/audit_views.py",
    "surveys/inputs/questions.py",
    "surveys/kinds/_chart_rows.py",
    "surveys/kinds/_data.py",
    "surveys/kinds/_definitions.py",
    "surveys/kinds/_deniability.py",
    "surveys/kinds/_design.py",
    "surveys/kinds/_estimates.py",
    "surveys/kinds/_fields.py",
    "surveys/kinds/_protocol.py",
    "surveys/kinds/_question.py",
    "surveys/kinds/_release.py",
    "surveys/pages/invitation_pages.py",
    "surveys/pages/respond_page.py",
    "privacy/audit_details.py",
    "privacy/templatetags/release_kinds.py",
    "dpcore/central/cheater.py",
    "dpcore/central/csprng.py",
    "dpcore/central/events.py",
    "dpcore/central/pld_lattice.py",
    "dpcore/central/rdp.py",
    "dpcore/errors.py",
    "dpcore/local/compare.py",
    "dpcore/local/planning.py",
    "dpcore/local/power.py",
    "dpcore/local/unified_interval.py",
    "dpcore/stats.py",
    "dpcore/validation.py",
    "accounts/api/serializers.py",
    "accounts/api/views.py",
    "accounts/authentication.py",
    "accounts/forms.py",
    "accounts/inputs.py",
    "accounts/keys.py",
    "accounts/mail.py",
    "accounts/models.py",
    "accounts/ratelimit.py",
    "accounts/schema.py",
    "accounts/selectors.py",
    "accounts/services.py",
    "accounts/views.py",
    "surveys/analysis/confidence.py",
    "surveys/analysis/export.py",
    "surveys/analysis/regression.py",
    "surveys/analysis/regression_jobs.py",
    "surveys/analysis/regression_rows.py",
    "surveys/api/analysis_views.py",
    "surveys/api/management_views.py",
    "surveys/api/read_views.py",
    "surveys/api/serializers.py",
    "surveys/api/views.py",
    "surveys/collection/admission.py",
    "surveys/collection/public_survey_cache.py",
    "surveys/collection/respond_memo.py",
    "surveys/collection/simulation.py",
    "surveys/definitions/crosswise_statements.py",
    "surveys/definitions/demo_translations.py",
    "surveys/definitions/freeze.py",
    "surveys/definitions/innocuous.py",
    "surveys/definitions/physical.py",
    "surveys/definitions/question_designs.py",
    "surveys/definitions/specs.py",
    "surveys/definitions/translations.py",
    "surveys/fields.py",
    "surveys/inputs/access.py",
    "surveys/inputs/analysis.py",
    "surveys/inputs/design_specs.py",
    "surveys/inputs/invitations.py",
    "surveys/inputs/management.py",
    "surveys/inputs/previews.py",
    "surveys/inputs/surveys.py",
    "surveys/kinds/base.py",
    "surveys/models.py",
    "surveys/pages/analysis.py",
    "surveys/pages/dashboard.py",
    "surveys/pages/forms.py",
    "surveys/pages/management.py",
    "surveys/pages/protection.py",
    "surveys/pages/respond_i18n.py",
    "surveys/pages/respond_strings.py",
    "surveys/selectors/summaries.py",
    "surveys/pages/views.py",
    "surveys/selectors/sql.py",
    "surveys/services/batches.py",
    "surveys/services/invitation_check.py",
    "surveys/services/management.py",
    "surveys/services/submission_rows.py",
    "surveys/services/submission_storage.py",
    "surveys/services/tally_upsert.py",
    "surveys/tasks.py",
    "privacy/api/serializers.py",
    "privacy/api/views.py",
    "privacy/inputs.py",
    "privacy/models.py",
    "privacy/selectors.py",
    "privacy/services/enqueue.py",
    "privacy/services/lock.py",
    "privacy/services/plan.py",
    "privacy/services/preview.py",
    "privacy/services/refund.py",
    "privacy/services/results.py",
    "privacy/services/run.py",
    "privacy/services/sensitivity.py",
    "privacy/services/spent.py",
    "privacy/services/sweep.py",
    "privacy/specs.py",
    "privacy/tasks.py",
    "deniable/api.py",
    "deniable/api_errors.py",
    "deniable/api_schema.py",
    "deniable/beat.py",
    "deniable/csv_cells.py",
    "deniable/health.py",
    "deniable/healthcheck.py",
    "deniable/input_fields.py",
    "deniable/inputs.py",
    "deniable/log_filters.py",
    "deniable/middleware.py",
    "deniable/not_found.py",
    "deniable/openapi.py",
    "deniable/users.py",
}

# Over 400 lines while other branches of issue 23 split them (views, protection, forms, the
# survey input serializer, the API views; the designs branch turns dpcore/local/designs.py into a
# registry). The lead empties this at merge. The settings are over too (414): to be split into
# deniable/settings/ modules by topic, not allow-listed for good.
TOO_LONG_FOR_NOW: set[str] = set()


def _modules() -> list[str]:
    out = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and path.name != "__init__.py":
                out.append(relative)
    return out


def _mirrored(module: str) -> bool:
    stem = Path(module).with_suffix("")
    tests = ROOT / "tests" / stem.parent
    return (tests / f"test_{stem.name}.py").exists() or (ROOT / "tests" / stem).is_dir()


def test_every_module_has_a_test_at_its_mirrored_path():
    missing = [
        module
        for module in _modules()
        if not NO_MIRROR.search(module) and module not in NOT_YET_MIRRORED and not _mirrored(module)
    ]
    assert not missing, (
        "modules without tests/<path>/test_<module>.py (or a directory tests/<path>/<module>/): "
        f"{missing}"
    )


def test_the_not_yet_mirrored_list_only_shrinks():
    modules = set(_modules())
    stale = sorted(module for module in NOT_YET_MIRRORED if module not in modules)
    done = sorted(module for module in NOT_YET_MIRRORED if module in modules and _mirrored(module))
    assert not stale, f"gone or moved: take them off NOT_YET_MIRRORED: {stale}"
    assert not done, f"mirrored now: take them off NOT_YET_MIRRORED: {done}"


def test_no_module_is_over_400_lines():
    long = {
        module: n
        for module in _modules()
        if (n := len((ROOT / module).read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    over = {module: n for module, n in long.items() if module not in TOO_LONG_FOR_NOW}
    assert not over, f"modules over {MAX_LINES} lines: {over}"
    fixed = sorted(TOO_LONG_FOR_NOW - set(long))
    assert not fixed, f"no longer over {MAX_LINES} lines: take them off TOO_LONG_FOR_NOW: {fixed}"
