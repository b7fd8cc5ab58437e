"""Keep the leaderboards and reminders in step with learners' accounts."""

from __future__ import annotations

from django.dispatch import receiver

from dynamo.models import utcnow
from users.signals import deletion_changed, renamed

from . import reminders
from .activity import conditional_update
from .leaderboard import show_on_board
from .models import UserStats


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner off the boards; bring a restored one back, reminders too."""
    show_on_board(user.username, visible=not user.is_deleted)
    if not user.is_deleted:
        reminders.resume(user.username, utcnow())


@receiver(renamed)
def copy_the_new_name(sender, user, **kwargs) -> None:
    """Rewrite the name the leaderboards show (nothing to do before the learner has stats)."""
    s = UserStats
    conditional_update(
        user.username, [s.name.set(user.name), s.version.add(1)], s.username.exists()
    )
