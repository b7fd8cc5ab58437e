"""Signals the users app sends so other apps can follow a learner's changes."""

from django.dispatch import Signal

# Sent after a user is soft-deleted or restored, with `user`: who is listed changes.
deletion_changed = Signal()
