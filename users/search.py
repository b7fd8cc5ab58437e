"""Talent search: listed holders of a skill, best first, one Query per level on a page.

gsi_skill_level sorts each skill's holders by level (Expert 4 … Beginner 1), then years. A
search for one level, or for any level without a minimum of years, is one Query. "At least a
level" and "any level with N+ years" are one Query per level, best level first, concatenated:
the years condition can only narrow the last sort attribute given, so each level is its own
Query. A page's cursor carries the level it stopped in and that Query's position, signed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynamo import cursors

from .models import LEVELS, PROFICIENCIES, UserSkill

ANY_LEVEL = 0  # one Query over every level at once


@dataclass(frozen=True)
class TalentSearch:
    """What to look for: a catalog skill name, a level or a minimum level, minimum years."""

    skill: str
    level: str | None = None
    min_level: str | None = None
    min_years: int | None = None

    def __post_init__(self) -> None:
        for name in ("level", "min_level"):
            value = getattr(self, name)
            if value is not None and value not in LEVELS:
                raise ValueError(f"{name} must be one of {', '.join(PROFICIENCIES)}.")
        if self.level and self.min_level:
            raise ValueError("Give a level or a minimum level, not both.")
        if self.min_years is not None and not 0 <= self.min_years <= 60:
            raise ValueError("min_years must be a whole number from 0 to 60.")

    def levels(self) -> list[int]:
        """Return the levels to query in order, best first (ANY_LEVEL: all in one Query)."""
        if self.level:
            return [LEVELS[self.level]]
        lowest = LEVELS[self.min_level] if self.min_level else None
        if lowest is None and self.min_years is None:
            return [ANY_LEVEL]
        return list(range(max(LEVELS.values()), (lowest or 1) - 1, -1))

    def scope(self) -> str:
        """Return the cursor scope, so a page link fits only this very search."""
        return f"talent-search:{self.skill}|{self.level}|{self.min_level}|{self.min_years}"

    def query(self, level: int, limit: int, start: dict[str, Any] | None):
        """Run one Query on gsi_skill_level for one level (or all), best first."""
        condition = None
        if level != ANY_LEVEL:
            condition = UserSkill.level == level
            if self.min_years is not None:
                condition &= UserSkill.years >= self.min_years
        return UserSkill.gsi_skill_level.query(
            self.skill,
            range_key_condition=condition,
            scan_index_forward=False,
            limit=limit,
            last_evaluated_key=start,
        )


@dataclass
class Page:
    """One page of holders and the signed cursor of the next page ('' on the last one)."""

    holders: list[UserSkill]
    cursor: str


def search(criteria: TalentSearch, *, limit: int, cursor: str | None = None) -> Page:
    """Return one page of holders, best first; raise InvalidCursor for a bad page link."""
    levels = criteria.levels()
    position, start = _position(cursor, criteria.scope(), len(levels))
    holders: list[UserSkill] = []
    while position < len(levels):
        results = criteria.query(levels[position], limit - len(holders), start)
        holders += list(results)
        start = results.last_evaluated_key
        if start is not None:
            break  # the page is full (or DynamoDB's 1 MB page ended): resume in this level
        position += 1
        if len(holders) == limit:
            break
    if position == len(levels):
        return Page(holders, "")
    return Page(holders, cursors.sign({"l": position, "k": start}, criteria.scope()))


def _position(cursor: str | None, scope: str, levels: int) -> tuple[int, dict[str, Any] | None]:
    if not cursor:
        return 0, None
    payload = cursors.unsign(cursor, scope)
    position, key = payload.get("l"), payload.get("k")
    if not isinstance(position, int) or not 0 <= position < levels:
        raise cursors.InvalidCursor("This page link is malformed.")
    if key is not None and not cursors.is_key(key):
        raise cursors.InvalidCursor("This page link is malformed.")
    return position, key
