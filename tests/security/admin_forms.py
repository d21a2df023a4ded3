"""Helpers of the admin tests: the POST body a browser would send back for an admin change
form as rendered (tests/security/test_admin_freeze.py, test_admin_walk.py)."""

from __future__ import annotations

from typing import Any


def _bound_value(bound: Any) -> Any:
    """What a browser would post back for one bound field (split widgets post their parts)."""
    value = bound.value()
    widget = bound.field.widget
    if hasattr(widget, "widgets"):  # a MultiWidget, e.g. the admin's split date and time
        parts = widget.decompress(value) if not isinstance(value, list) else value
        return {
            f"{bound.html_name}{suffix}": "" if part is None else part
            for suffix, part in zip(widget.widgets_names, parts, strict=True)
        }
    if value is None:
        value = ""
    elif isinstance(value, bool):
        if not value:
            return {}
        value = "on"
    return {bound.html_name: value}


def change_form_data(response: Any) -> dict[str, Any]:
    """The POST body of an admin change form as rendered: every editable field of the form and
    of every inline formset (management forms included)."""
    data: dict[str, Any] = {}
    for bound in response.context["adminform"].form:
        data.update(_bound_value(bound))
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for bound in formset.management_form:
            data[bound.html_name] = bound.value()
        for form in formset.forms:
            for bound in form:
                data.update(_bound_value(bound))
    return data
