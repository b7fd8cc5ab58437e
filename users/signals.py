"""Signals the users app sends so other apps can follow a learner's changes."""

from django.dispatch import Signal

# Sent after a user is soft-deleted or restored, with `user`: who is listed changes.
deletion_changed = Signal()

# Sent after a user is created or renamed, with `user`: copies of the name follow it.
renamed = Signal()
