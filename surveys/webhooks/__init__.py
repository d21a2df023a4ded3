"""Webhooks (issue 25 item 4, DESIGN §8.6): a signed POST on each published batch, never per
submission (docs/api.md#webhooks)."""
