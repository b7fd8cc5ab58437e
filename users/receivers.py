"""Keep user-skills in step with the catalog and with their learners' accounts."""

from __future__ import annotations

from django.dispatch import receiver

from catalog.signals import skill_saved

from .models import UserSkill
from .signals import deletion_changed


@receiver(skill_saved)
def sync_copies_of_saved_skill(sender, skill, created=False, **kwargs) -> None:
    if not created:  # a new skill has no holders yet
        UserSkill.sync_with_catalog(skill)


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner out of the talent search; bring a restored one back."""
    UserSkill.show_in_search(user.username, visible=not user.is_deleted)
