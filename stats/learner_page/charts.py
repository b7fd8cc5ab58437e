"""The learner page's calendar and XP chart as SVG geometry, drawn on the server.

Plain numbers for the template: no script, no inline style (the CSP forbids both); shades
are classes the stylesheet colours, and every cell and bar carries a <title> for screen
readers and pointer hovers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from math import ceil
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

CELL, GAP = 11, 3
LEFT, TOP = 28, 16  # room for weekday and month labels
SHADES = 4
CHART_WIDTH, CHART_HEIGHT, CHART_BOTTOM = 742, 150, 20
WEEKDAY_LABELS = ((1, "Mon"), (3, "Wed"), (5, "Fri"))


@dataclass(frozen=True)
class Cell:
    x: int
    y: int
    shade: int
    title: str


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str


def _plural(count: float, word: str) -> str:
    return f"{count:g} {word}{'' if count == 1 else 's'}"


def _number(value: float) -> str:
    return number_format(value, decimal_pos=None, force_grouping=True)


def year_summary(days: list[dict[str, Any]]) -> str:
    """Return the year's study in words: "88 sessions on 82 days, 11,530 XP in all".

    The XP is every day's, staff corrections among it (they add up to the learner's total);
    the sessions and days are study alone.
    """
    active = [d for d in days if d["sessions"]]
    if not active:
        return gettext("No study in the last 52 weeks.")
    sessions = int(sum(d["sessions"] for d in active))
    xp = sum(d["xp"] for d in days)
    return gettext("%(sessions)s on %(days)s, %(xp)s in all") % {
        "sessions": ngettext("%(n)s session", "%(n)s sessions", sessions)
        % {"n": _number(sessions)},
        "days": ngettext("%(n)s day", "%(n)s days", len(active)) % {"n": _number(len(active))},
        "xp": gettext("%(n)s XP") % {"n": _number(int(xp) if xp == int(xp) else xp)},
    }


def whole_minutes(minutes: float) -> str:
    """Return a session's length in whole minutes ("12 min"; "<1 min" under half a minute)."""
    whole = int(minutes + 0.5)
    if whole < 1:
        return gettext("<1 min")
    return gettext("%(n)s min") % {"n": _number(whole)}


def shade_of(day: dict[str, Any] | None, busiest: float) -> int:
    """Return a day's shade, 0 to SHADES: study alone shades (a correction-only day is 0)."""
    if not day or not day["sessions"]:
        return 0
    if busiest <= 0:
        return 1
    return max(1, ceil(SHADES * max(day["xp"], 0) / busiest))


def day_title(day: date, held: dict[str, Any] | None) -> str:
    """Return a cell's title: the day's XP and sessions, a correction's XP on no study."""
    if held and held["sessions"]:
        return f"{day:%a %-d %b %Y}: {held['xp']:g} XP, {_plural(held['sessions'], 'session')}"
    if held and held["xp"]:
        return f"{day:%a %-d %b %Y}: no study, {held['xp']:+g} XP corrected"
    return f"{day:%a %-d %b %Y}: no study"


def calendar(first_day: str, last_day: str, days: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the calendar: one cell a day, columns of weeks (Sunday on top), shaded by XP."""
    start, end = date.fromisoformat(first_day), date.fromisoformat(last_day)
    by_day = {d["day"]: d for d in days}
    busiest = max((d["xp"] for d in days if d["sessions"]), default=0)
    cells, months = [], []
    day = start
    while day <= end:
        column, row = (day - start).days // 7, (day.weekday() + 1) % 7
        held = by_day.get(day.isoformat())
        x, y = LEFT + column * (CELL + GAP), TOP + row * (CELL + GAP)
        cells.append(Cell(x, y, shade_of(held, busiest), day_title(day, held)))
        if day.day == 1 or day == start:
            months.append({"x": LEFT + column * (CELL + GAP), "label": f"{day:%b}"})
        day += timedelta(days=1)
    columns = (end - start).days // 7 + 1
    active = [d for d in days if d["sessions"]]
    return {
        "cells": cells,
        # A label per month; a partial first month's gives way to the next one's when close.
        "months": [
            m
            for i, m in enumerate(months)
            if i + 1 == len(months) or months[i + 1]["x"] - m["x"] > 20
        ],
        "weekdays": [
            {"y": TOP + row * (CELL + GAP) + CELL - 2, "label": label}
            for row, label in WEEKDAY_LABELS
        ],
        "width": LEFT + columns * (CELL + GAP) + 12,  # room for the last month's label
        "height": TOP + 7 * (CELL + GAP),
        "cell": CELL,
        "summary": (
            f"{_plural(sum(d['sessions'] for d in active), 'session')} on "
            f"{_plural(len(active), 'day')} between {start:%-d %b %Y} and {end:%-d %b %Y}, "
            f"{sum(d['xp'] for d in days):g} XP in all"
        ),
        "shades": range(SHADES + 1),
    }


def weekly_xp(first_day: str, last_day: str, days: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the XP chart: one bar a week (the calendar's columns), scaled to the best week.

    A week's XP is net of staff corrections; a week they leave below 0 draws no bar, its title
    still says how much.
    """
    start, end = date.fromisoformat(first_day), date.fromisoformat(last_day)
    weeks = (end - start).days // 7 + 1
    totals = [0.0] * weeks
    for held in days:
        index = (date.fromisoformat(held["day"]) - start).days // 7
        if 0 <= index < weeks:
            totals[index] += held["xp"]
    best_week = max([0, *totals])
    best = best_week or 1
    slot = (CHART_WIDTH - LEFT) / weeks
    plot = CHART_HEIGHT - CHART_BOTTOM
    bars = []
    for index, xp in enumerate(totals):
        height = plot * max(xp, 0) / best
        week = start + timedelta(weeks=index)
        bars.append(
            Bar(
                round(LEFT + index * slot + 1, 1),
                round(plot - height, 1),
                round(max(slot - 2, 1), 1),
                round(height, 1),
                f"Week of {week:%-d %b %Y}: {xp:g} XP",
            )
        )
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "baseline": plot,
        "best": best_week,
        "first": f"{start:%b %Y}",
        "last": f"{end:%b %Y}",
        "summary": (
            f"XP per week from {start:%-d %b %Y} to {end:%-d %b %Y}: best week "
            f"{best_week:g} XP, {sum(totals):g} XP in all"
        ),
    }
