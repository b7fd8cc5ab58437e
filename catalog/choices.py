"""The catalog's skill names for forms to offer (a datalist), read once per CACHE_SECONDS."""

from __future__ import annotations

from django.core.cache import cache

from dynamo.parallel import read_together

from .models import CATEGORIES, Skill

CACHE_KEY = "catalog:skill-names"
CACHE_SECONDS = 300


def skill_names() -> list[str]:
    """Return every catalog skill's name, alphabetically: one Query per category, cached.

    A write to the catalog forgets the cached list (`forget_skill_names`); a skill deleted
    elsewhere leaves the list for at most CACHE_SECONDS, harmlessly: a search for it finds
    nobody.
    """
    names = cache.get(CACHE_KEY)
    if names is None:
        pages = read_together(
            [
                lambda c=category: [s.name for s in Skill.gsi_category.query(c)]
                for category in CATEGORIES
            ]
        )
        names = sorted({name for page in pages for name in page}, key=str.casefold)
        cache.set(CACHE_KEY, names, CACHE_SECONDS)
    return names


def forget_skill_names() -> None:
    """Drop the cached list, so the next form reads the catalog again."""
    cache.delete(CACHE_KEY)
