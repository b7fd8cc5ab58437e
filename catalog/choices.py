"""The catalog's skill names for forms to offer (a datalist), read once per CACHE_SECONDS.

The same cached list resolves what a visitor types to the catalog's spelling (ignoring case,
accents and surrounding spaces: `catalog_name`) and offers near misses (`near_names`), so a
search reads nothing more than the list, but for a name the list does not know yet.
"""

from __future__ import annotations

import difflib
import unicodedata

from django.core.cache import cache

from .models import Skill, name_key

CACHE_KEY = "catalog:skill-names:v2"
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
    return sorted(set(catalog_names_by_id().values()), key=str.casefold)


def _catalog() -> dict[str, dict[str, str]]:
    """Return the cached read: `names` by skill id, current `names_by_former` name."""
    found = cache.get(CACHE_KEY)
    if found is None:
        skills = Skill.scan(attributes_to_get=["skill_id", "name", "former_names"])
        found = {"names": {}, "names_by_former": {}}
        for skill in skills:
            found["names"][skill.skill_id] = skill.name
            for former in skill.former_names or ():
                found["names_by_former"][folded(former)] = skill.name
        cache.set(CACHE_KEY, found, CACHE_SECONDS)
    return found


def catalog_names_by_id() -> dict[str, str]:
    """Return every catalog skill's name by its id: the cached read skill_names() lists."""
    return _catalog()["names"]


def forget_skill_names() -> None:
    """Drop the cached list, so the next form reads the catalog again."""
    cache.delete(CACHE_KEY)


def folded(text: str) -> str:
    """Return the form a typed name is compared in: no surrounding spaces, accents or case."""
    decomposed = unicodedata.normalize("NFKD", text.strip())
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", bare.casefold())


def catalog_name(typed: str) -> str | None:
    """Return the catalog's name for what was typed (`python`, ` PYTHON `), or None.

    From the cached list; where two names fold alike (Café, Cafe) the one equal but for case
    wins. A name the list lacks (a skill added in another process since) is looked up by its
    key on gsi_name_key: one small Query, only then; failing that, a skill's former name (it
    was renamed) or the start of exactly one name ("pyth") finds it.
    """
    wanted = folded(typed)
    if not wanted:
        return None
    alike = [name for name in skill_names() if folded(name) == wanted]
    if alike:
        key = name_key(typed.strip())
        return next((name for name in alike if name_key(name) == key), alike[0])
    found = next(iter(Skill.gsi_name_key.query(name_key(typed.strip()), limit=1)), None)
    if found is not None:
        return found.name
    former = _catalog()["names_by_former"].get(wanted)
    if former is not None:
        return former
    starting = names_starting(typed)
    return starting[0] if len(starting) == 1 else None


def names_starting(typed: str) -> list[str]:
    """Return the catalog names that start with what was typed ("pyth": Python), by name."""
    wanted = folded(typed)
    return [name for name in skill_names() if wanted and folded(name).startswith(wanted)]


def near_names(typed: str, limit: int = 3) -> list[str]:
    """Return up to `limit` catalog names close to what was typed ("Pythn": Python), best first.

    Names starting with it come first ("Java": Java EE, JavaScript).
    """
    by_fold: dict[str, str] = {}
    for name in skill_names():
        by_fold.setdefault(folded(name), name)
    close = difflib.get_close_matches(folded(typed), list(by_fold), n=limit, cutoff=0.6)
    near = names_starting(typed) + [by_fold[key] for key in close]
    return list(dict.fromkeys(near))[:limit]
