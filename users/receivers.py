"""Keep user-skills in step with their learners' accounts.

Copies of a renamed catalog skill are rewritten outside the request: the save marks the skill
pending and `sync_user_skills --pending` (scheduled every minute) rewrites them.
"""

from __future__ import annotations

from django.dispatch import receiver

from catalog.signals import count_holders

from .models import LearnerWord, UserSkill
from .signals import deletion_changed, purging


@receiver(count_holders)
def count_user_skills(sender, skill, within=None, **kwargs) -> tuple[int, bool]:
    """Count the learners holding a catalog skill (COUNT Queries on gsi_skill_id)."""
    return UserSkill.holders_count(skill.skill_id, within=within)


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner out of the talent search; bring a restored one back."""
    UserSkill.show_in_search(user.username, visible=not user.is_deleted)


@receiver(purging)
def delete_purged_search_words(sender, user, **kwargs) -> tuple[str, int]:
    """Take a purged learner out of the learner search (by their name, email and username)."""
    return ("search words", LearnerWord.forget(user))
