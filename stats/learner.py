"""A learner's own page as plain data, read once per LEADERBOARD_CACHE_SECONDS per page.

Two rounds of reads, each sent together (`dynamo.parallel.read_together`): one BatchGetItem
for the learner, their stats, the four boards' score-tier pointers and move counters, their
skills in the order added (`gsi_user_created_at`), a page of sessions (newest first) and a
year of study days; then, with the stats in hand, one read per board (the score's tier, or
the live COUNT of the top tier). Eight calls with one leaderboard shard, whatever the
history's length: the calendar reads days, never sessions. The HTML page and `?format=json`
serve the same data from the same cache entry.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from django.utils.http import urlencode

from dynamo import cursors
from dynamo.batch import get_together
from dynamo.parallel import read_together
from users.models import USERNAME_RE, User, UserSkill

from .history import StudyDay, StudySession
from .leaderboard import rank_infos
from .models import METRICS, UserStats, leaderboard_partitions
from .tiers import Pointer, pointer_keys, pointers_from

SESSIONS_PER_PAGE = 20
CALENDAR_WEEKS = 52


class BadPageRequest(ValueError):
    """A cursor made for another learner's page, or tampered with."""


def ranks_of(stats: UserStats, pointers: dict[str, Pointer | None]) -> list[dict[str, Any]]:
    """Return a learner's rank on every board, from the score tiers: {rank, exact, label}."""
    infos = rank_infos(stats, METRICS, pointers=pointers)
    return [
        {"rank": info.rank, "exact": info.exact and info.ready, "label": f"#{info.label}"}
        for info in (infos[metric] for metric in METRICS)
    ]


def calendar_start(today: date) -> date:
    """Return the first day the calendar shows: a Sunday, 52 full weeks before this week's."""
    this_sunday = today - timedelta(days=(today.weekday() + 1) % 7)
    return this_sunday - timedelta(weeks=CALENDAR_WEEKS)


def learner_page(username: str, *, cursor: str | None, today: date) -> dict[str, Any] | None:
    """Return the page's data, or None for an unknown or soft-deleted learner (alike).

    From Django's cache while fresh: one entry per learner, page of sessions and day.
    Raise BadPageRequest for a bad cursor.
    """
    if not USERNAME_RE.fullmatch(username):
        return None
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return _read(username, cursor, today)
    parts = (username, cursor or "", today.isoformat(), settings.LEADERBOARD_SHARDS)
    key = "learner-page:" + hashlib.sha256(repr(parts).encode()).hexdigest()
    hit = cache.get(key)
    if hit is None:
        hit = {"data": _read(username, cursor, today)}  # wrapped: a 404 is cached too
        cache.set(key, hit, seconds)
    return hit["data"]


def _read(username: str, cursor: str | None, today: date) -> dict[str, Any] | None:
    scope = f"learner-sessions:{username}"
    try:
        start = cursors.decode(cursor, scope)
    except cursors.InvalidCursor as exc:
        raise BadPageRequest(str(exc)) from exc
    first_day = calendar_start(today)
    sessions_page = StudySession.newest_first(
        username, limit=SESSIONS_PER_PAGE, last_evaluated_key=start
    )
    # The learner, their stats and the boards' tier pointers (for the ranks below) are items
    # of three tables: one BatchGetItem.
    partitions = leaderboard_partitions()
    keys = [(User, (username,)), (UserStats, (username,)), *pointer_keys(METRICS, partitions)]
    items, skills, sessions, days = read_together(
        [
            lambda: get_together(keys),
            lambda: list(UserSkill.gsi_user_created_at.query(username)),
            lambda: list(sessions_page),
            lambda: list(StudyDay.since(username, first_day)),
        ]
    )
    learner, stats, *jobs = items
    boards = pointers_from(list(METRICS), jobs, partitions)
    if learner is None or learner.is_deleted:
        return None
    listed = stats is not None and stats.leaderboard_partition is not None
    ranks = ranks_of(stats, boards) if listed else [None] * len(METRICS)
    return {
        "username": learner.username,
        "name": learner.name,
        "joined": learner.created_at.date().isoformat() if learner.created_at else None,
        "skills": [skill_data(held) for held in skills],
        "metrics": {
            metric: {"value": getattr(stats, metric) if stats else 0, "rank": rank}
            for metric, rank in zip(METRICS, ranks, strict=True)
        },
        "sessions_recorded": int(stats.sessions or 0) if stats else 0,
        "last_active_day": stats.last_active_day if stats else None,
        "sessions": [session_data(session) for session in sessions],
        "next": cursors.encode(sessions_page.last_evaluated_key, scope) or None,
        "calendar": {
            "first_day": first_day.isoformat(),
            "last_day": today.isoformat(),
            "days": [
                {"day": d.day, "xp": d.xp, "sessions": d.sessions, "minutes": d.minutes}
                for d in days
                if d.day <= today.isoformat()
            ],
        },
    }


def skill_data(held: UserSkill) -> dict[str, Any]:
    """Return what the page shows of a skill, with its talent search link."""
    query = {"skill": held.skill_name, "level": held.proficiency}
    return {
        "skill_id": held.skill_id,
        "skill_name": held.skill_name,
        "category": held.category,
        "proficiency": held.proficiency,
        "years": int(held.years or 0),
        "search_url": f"{reverse('users:talent_search')}?{urlencode(query)}",
    }


def session_data(session: StudySession) -> dict[str, Any]:
    """Return what the page shows of a session."""
    return {
        "session_id": session.session_id,
        "started_at": session.started_at.isoformat(),
        "xp": session.xp,
        "questions": session.questions_answered,
        "correct": session.questions_correct,
        "minutes": session.minutes,
        "skill_id": session.skill_id,
    }
