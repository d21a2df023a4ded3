"""Every CSS class the account and registration templates use is defined in static/css/site.css
(the scanner of tests/surveys/pages/test_researcher_css.py, over these templates)."""

from __future__ import annotations

from tests.surveys.pages.test_researcher_css import ROOT, defined_classes, template_classes

TEMPLATES = sorted((ROOT / "templates" / "accounts").glob("*.html")) + sorted(
    (ROOT / "templates" / "registration").glob("*.html")
)


def test_the_account_templates_are_scanned():
    names = {p.name for p in TEMPLATES}
    assert {"tokens.html", "signup.html", "password_reset_form.html", "login.html"} <= names
    assert {"token-list", "notice", "card"} <= template_classes(
        ROOT / "templates" / "accounts" / "tokens.html"
    )


def test_every_account_class_is_defined_in_site_css():
    defined = defined_classes()
    missing = {
        p.name: sorted(c for c in template_classes(p) if c not in defined) for p in TEMPLATES
    }
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}
