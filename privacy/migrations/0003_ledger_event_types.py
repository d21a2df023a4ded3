"""Ledger entries in the fixed-meaning encoding of ``dpcore.central.event_codec``.

Before: ``{"type": "laplace", "epsilon_each": ε, "count": Q}`` meant Q *discrete* Laplace events
only through the default of ``LaplaceEvent(discrete=True)``; ``{"type": "zcdp", "rho": ρ}`` and
``{"type": "pure", "epsilon": ε}`` had no count. After: one tag per event class, every field
explicit::

    {"type": "discrete_laplace", "epsilon_each": ε, "count": Q}
    {"type": "zcdp", "rho": ρ, "count": 1}
    {"type": "pure_dp", "epsilon_each": ε, "count": 1}

The numbers are copied unchanged, so every survey's spent budget is identical before and after.
Self-contained (no import of the codec): a migration must keep meaning what it meant when written.
"""

from __future__ import annotations

from django.db import migrations


def new_event(event: dict) -> dict:
    kind = event.get("type")
    if kind == "laplace":
        return {
            "type": "discrete_laplace",
            "epsilon_each": event["epsilon_each"],
            "count": event["count"],
        }
    if kind == "zcdp" and "count" not in event:
        return {"type": "zcdp", "rho": event["rho"], "count": 1}
    if kind == "pure":
        return {"type": "pure_dp", "epsilon_each": event["epsilon"], "count": 1}
    return event


def old_event(event: dict) -> dict:
    kind = event.get("type")
    if kind == "discrete_laplace":
        return {"type": "laplace", "epsilon_each": event["epsilon_each"], "count": event["count"]}
    if kind == "zcdp" and event.get("count") == 1:
        return {"type": "zcdp", "rho": event["rho"]}
    if kind == "pure_dp" and event.get("count") == 1:
        return {"type": "pure", "epsilon": event["epsilon_each"]}
    raise ValueError(f"ledger event {event!r} has no equivalent in the old encoding")


def _rewrite(apps, convert) -> None:
    LedgerEntry = apps.get_model("privacy", "LedgerEntry")
    for entry in LedgerEntry.objects.only("pk", "event").iterator():
        event = convert(entry.event)
        if event != entry.event:
            LedgerEntry.objects.filter(pk=entry.pk).update(event=event)


def forward(apps, schema_editor) -> None:
    _rewrite(apps, new_event)


def backward(apps, schema_editor) -> None:
    _rewrite(apps, old_event)


class Migration(migrations.Migration):
    dependencies = [("privacy", "0002_release_results_immutable_trigger")]

    operations = [migrations.RunPython(forward, backward)]
