"""Compare a learner's stored totals and study days with what their sessions add up to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stats.models import UserStats

from .models import DayTotals, StudyDay, Totals

COMPARED = ("xp", "questions_answered", "questions_correct", "minutes_studied", "sessions")


@dataclass
class Check:
    """One learner's outcome: `drift` names what differs; `fixed` None when not asked to.

    `days` holds each study day that differs from its sessions: {day: {field: (stored,
    expected)}}; `fixed` is True only when the totals and every day were mended.
    """

    username: str
    drift: dict[str, tuple[Any, Any]]
    days: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)
    fixed: bool | None = None

    @property
    def drifted(self) -> bool:
        return bool(self.drift or self.days)


def day_drift(
    stored: dict[str, StudyDay], wanted: dict[str, DayTotals]
) -> dict[str, dict[str, tuple[Any, Any]]]:
    """Return {day: {field: (stored, from its sessions)}} for every study day that differs."""
    drift = {}
    for day in sorted(stored.keys() | wanted.keys()):
        have = DayTotals.stored_in(stored.get(day))
        want = wanted.get(day, DayTotals())
        fields = {
            name: (getattr(have, name), getattr(want, name))
            for name in DayTotals.FIELDS
            if getattr(have, name) != getattr(want, name)
        }
        if fields:
            drift[day] = fields
    return drift


def drift_of(stats: UserStats, totals: Totals) -> dict[str, tuple[Any, Any]]:
    """Return {total: (stored, from history)} for every total, or metric, that differs."""
    stored = Totals.stored_in(stats)
    drift = {
        name: (getattr(stored, name), getattr(totals, name))
        for name in COMPARED
        if getattr(stored, name) != getattr(totals, name)
    }
    wanted = UserStats(
        stats.username,
        questions_answered=totals.questions_answered,
        questions_correct=totals.questions_correct,
        minutes_studied=totals.minutes_studied,
    ).derived_metrics()
    for name, value in zip(("accuracy", "efficiency"), wanted, strict=True):
        if getattr(stats, name) != value:
            drift[name] = (getattr(stats, name), value)
    return drift
