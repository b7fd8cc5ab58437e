"""Signals the catalog sends so other apps can follow its changes."""

from django.dispatch import Signal

# Sent after a catalog skill is saved, with `skill` and `created`: copies may now be stale.
skill_saved = Signal()

# Sent to count the holders of `skill` within `within` seconds (None: no limit): each receiver
# returns (how many of its items hold it, whether it counted them all).
count_holders = Signal()
