"""Signals the catalog sends so other apps can follow its changes."""

from django.dispatch import Signal

# Sent after a catalog skill is saved, with `skill` and `created`: copies may now be stale.
skill_saved = Signal()
