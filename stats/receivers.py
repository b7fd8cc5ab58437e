"""Keep the leaderboards and reminders in step with learners' accounts."""

from __future__ import annotations

from django.dispatch import receiver

from dynamo.models import utcnow
from users.signals import deletion_changed

from . import reminders
from .leaderboard import show_on_board


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner off the boards; bring a restored one back, reminders too."""
    show_on_board(user.username, visible=not user.is_deleted)
    if not user.is_deleted:
        reminders.resume(user.username, utcnow())
