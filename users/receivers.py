"""Keep user-skills in sync with their learners' accounts.

Copies of a renamed catalog skill are rewritten outside the request: the save marks the skill
pending and `sync_user_skills --pending` (scheduled every minute) rewrites them.
"""

from __future__ import annotations

from django.dispatch import receiver

from .models import LearnerWord, UserSkill
from .signals import deletion_changed, purging


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner out of the talent search; bring a restored one back."""
    UserSkill.show_in_search(user.username, visible=not user.is_deleted)


@receiver(purging)
def delete_purged_search_words(sender, user, **kwargs) -> tuple[str, int]:
    """Take a purged learner out of the learner search (by their name, email and username)."""
    return ("search words", LearnerWord.forget(user))
