"""Signals the users app sends so other apps can follow a learner's changes."""

from django.dispatch import Signal

# Sent after a user is saved, with `user`: soft-deleting or restoring changes who is listed.
user_saved = Signal()
