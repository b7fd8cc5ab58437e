"""Keep the leaderboard in step with learners' accounts."""

from __future__ import annotations

from django.dispatch import receiver

from users.signals import deletion_changed

from .leaderboard import show_on_board


@receiver(deletion_changed)
def keep_soft_deleted_learners_off_the_board(sender, user, **kwargs) -> None:
    show_on_board(user.username, visible=not user.is_deleted)
