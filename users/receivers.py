"""Keep user-skills' copies of catalog data in step with the catalog."""

from __future__ import annotations

from django.dispatch import receiver

from catalog.signals import skill_saved

from .models import UserSkill


@receiver(skill_saved)
def sync_copies_of_saved_skill(sender, skill, created=False, **kwargs) -> None:
    if not created:  # a new skill has no holders yet
        UserSkill.sync_with_catalog(skill)
