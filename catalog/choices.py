"""The catalog's skill names for forms to offer (a datalist), read once per CACHE_SECONDS."""

from __future__ import annotations

from django.core.cache import cache

from .models import Skill

CACHE_KEY = "catalog:skill-names"
CACHE_SECONDS = 300


def skill_names() -> list[str]:
    """Return every catalog skill's name, alphabetically: one read of the catalog, cached.

    The catalog is a few dozen small items, one page of a Scan of its names: one call per
    CACHE_SECONDS and process, where a Query per category would be ten (and ten timeouts
    when the engine hangs).

    A write to the catalog forgets the cached list (`forget_skill_names`); a skill deleted
    elsewhere leaves the list for at most CACHE_SECONDS, harmlessly: a search for it finds
    nobody.
    """
    names = cache.get(CACHE_KEY)
    if names is None:
        found = Skill.scan(attributes_to_get=["name"])
        names = sorted({skill.name for skill in found}, key=str.casefold)
        cache.set(CACHE_KEY, names, CACHE_SECONDS)
    return names


def forget_skill_names() -> None:
    """Drop the cached list, so the next form reads the catalog again."""
    cache.delete(CACHE_KEY)
