"""A learner's own page as plain data, read once per LEADERBOARD_CACHE_SECONDS per page.

One BatchGetItem for the learner, their stats and the four boards' score-tier pointers and
move counters (a missing or deleted learner ends there); then their skills in the order added
(`gsi_user_created_at`), a page of sessions (newest first), a year of study days and, with
the stats in hand, one read per board (the score's tier, or the live COUNT of the top tier),
one after the other: DynamoDB Local answers calls sent at once no faster (bench/RESULTS.md,
"Reads at once"). Eight calls with one leaderboard shard, whatever the
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

from catalog.choices import catalog_names_by_id
from dynamo import cursors
from dynamo.batch import get_together
from dynamo.models import json_time
from stats.boards.ranking import rank_infos
from stats.boards.tiers import Pointer, pointer_keys, pointers_from
from stats.history.models import StudyDay, StudySession
from stats.models import METRICS, UserStats
from users.models import USERNAME_RE, User, UserSkill

SESSIONS_PER_PAGE = 20
CALENDAR_WEEKS = 52


class BadPageRequest(ValueError):
    """A cursor made for another learner's page, or tampered with."""


def ranks_of(stats: UserStats, pointers: dict[str, Pointer | None]) -> list[dict[str, Any]]:
    """Return a learner's rank on every board, from the score tiers: {rank, exact, label}."""
    infos = rank_infos(stats, METRICS, pointers=pointers)
    return [
        {
            "rank": info.rank,
            "exact": info.exact and info.ready,
            "label": f"#{info.label}",
            "lag": info.lag,
        }
        for info in (infos[metric] for metric in METRICS)
    ]


def calendar_start(today: date) -> date:
    """Return the first day the calendar shows: a Sunday, 52 full weeks before this week's."""
    this_sunday = today - timedelta(days=(today.weekday() + 1) % 7)
    return this_sunday - timedelta(weeks=CALENDAR_WEEKS)


def learner_page(
    username: str, *, cursor: str | None, today: date, newer: str | None = None
) -> dict[str, Any] | None:
    """Return the page's data, or None for an unknown or soft-deleted learner (alike).

    `cursor` pages on to older sessions, `newer` back to newer ones. From Django's cache while
    fresh: one entry per learner, page of sessions and day. Raise BadPageRequest for a bad
    cursor.
    """
    if not USERNAME_RE.fullmatch(username):
        return None
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return _read(username, cursor, newer, today)
    parts = (username, cursor or "", newer or "", today.isoformat(), settings.LEADERBOARD_SHARDS)
    key = "learner-page:" + hashlib.sha256(repr(parts).encode()).hexdigest()
    hit = cache.get(key)
    if hit is None:
        hit = {"data": _read(username, cursor, newer, today)}  # wrapped: a 404 is cached too
        cache.set(key, hit, seconds)
    return hit["data"]


def session_key(session: StudySession) -> dict[str, Any]:
    """Return a session's key as DynamoDB gives a LastEvaluatedKey."""
    return {"username": {"S": session.username}, "session_id": {"S": session.session_id}}


class SessionsPage:
    """One page of sessions, newest first, with the tokens of the pages older and newer."""

    def __init__(self, username: str, cursor: str | None, newer: str | None) -> None:
        self.scope = f"learner-sessions:{username}"
        try:
            older_start = cursors.decode(cursor, self.scope)
            newer_start = cursors.decode(newer, self.scope)
        except cursors.InvalidCursor as exc:
            raise BadPageRequest(str(exc)) from exc
        self.backwards = newer_start is not None and older_start is None
        if self.backwards:
            # The sessions just newer than the page's first, oldest first: one more than a
            # page tells whether newer ones remain.
            self.results = StudySession.query(
                username,
                scan_index_forward=True,
                limit=SESSIONS_PER_PAGE + 1,
                page_size=SESSIONS_PER_PAGE + 1,
                last_evaluated_key=newer_start,
            )
        else:
            self.results = StudySession.newest_first(
                username, limit=SESSIONS_PER_PAGE, last_evaluated_key=older_start
            )
        self.paged = older_start is not None

    def read(self) -> list[StudySession]:
        """Run the Query; return the page's sessions, newest first."""
        found = list(self.results)
        if self.backwards:
            self.paged = len(found) > SESSIONS_PER_PAGE
            self.sessions = list(reversed(found[:SESSIONS_PER_PAGE]))
            oldest = found[0] if found else None
            self.older_key = session_key(oldest) if oldest is not None else None
        else:
            self.sessions = found
            self.older_key = self.results.last_evaluated_key
        return self.sessions

    def tokens(self) -> tuple[str | None, str | None]:
        """Return the tokens of the older page and the newer page (None where there is none)."""
        older = cursors.encode(self.older_key, self.scope) or None
        newest = self.sessions[0] if self.sessions else None
        newer = None
        if self.paged and newest is not None:
            newer = cursors.encode(session_key(newest), self.scope)
        return older, newer


def _read(
    username: str, cursor: str | None, newer: str | None, today: date
) -> dict[str, Any] | None:
    first_day = calendar_start(today)
    sessions_page = SessionsPage(username, cursor, newer)
    # The learner, their stats and the boards' tier pointers (for the ranks below) are items
    # of three tables: one BatchGetItem.
    keys = [(User, (username,)), (UserStats, (username,)), *pointer_keys(METRICS)]
    learner, stats, *jobs = get_together(keys)
    if learner is None or learner.is_deleted:
        return None
    boards = pointers_from(list(METRICS), jobs)
    skills = list(UserSkill.gsi_user_created_at.query(username))
    sessions = sessions_page.read()
    days = list(StudyDay.since(username, first_day))
    listed = stats is not None and stats.leaderboard_partition is not None
    ranks = ranks_of(stats, boards) if listed else [None] * len(METRICS)
    older, newer_token = sessions_page.tokens()
    held = {skill.skill_id: skill.skill_name for skill in skills}
    if any(s.skill_id and s.skill_id not in held for s in sessions):
        held = catalog_names_by_id() | held  # a skill no longer held: the cached catalog
    active = [d for d in days if d.day <= today.isoformat()]
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
        # Staff corrections are XP, not study: in the totals and days, never a session row.
        "sessions": [session_data(s, held) for s in sessions if not s.is_correction],
        "next": older,
        "newer": newer_token,
        "calendar": {
            "first_day": first_day.isoformat(),
            "last_day": today.isoformat(),
            "days": [
                {"day": d.day, "xp": d.xp, "sessions": d.sessions, "minutes": d.minutes}
                for d in active
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


def session_data(session: StudySession, names: dict[str, str]) -> dict[str, Any]:
    """Return what the page shows of a session, its skill by the catalog's name."""
    name = names.get(session.skill_id) if session.skill_id else None
    search = f"{reverse('users:talent_search')}?{urlencode({'skill': name})}" if name else None
    return {
        "session_id": session.session_id,
        "started_at": json_time(session.started_at),
        "xp": session.xp,
        "questions": session.questions_answered,
        "correct": session.questions_correct,
        "minutes": session.minutes,
        "skill_id": session.skill_id,
        "skill_name": name,
        "skill_search_url": search,
    }
