"""Shared set-up for the stats benchmarks: DynamoDB Local in memory, fresh tables, bulk data."""

from __future__ import annotations

import logging
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))


@contextmanager
def engine() -> Iterator[str]:
    """Start DynamoDB Local in memory, set Django up against it and create the tables."""
    from dynamo import local

    with local.running(allow_moto=False) as running, tempfile.TemporaryDirectory() as static:
        os.environ["DYNAMODB_ENDPOINT"] = running.endpoint
        # Pages are rendered as production renders them (DEBUG off), which links the hashed
        # names of collected static files: collect them into a throwaway directory.
        os.environ["DJANGO_STATIC_ROOT"] = static
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
        os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdefghij")
        os.environ.setdefault("SITE_URL", "http://127.0.0.1:8000")
        os.environ["DYNAMODB_TABLE_PREFIX"] = "bench-"
        os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
        os.environ["EMAIL_URL"] = "memorymail://"
        os.environ.setdefault("DJANGO_ENV_FILE", "")  # never a developer's .env
        # Bulk writes and Scans of 100,000 items on a busy DynamoDB Local outlast a page's
        # deadline; a benchmark waits as a command from the shell does.
        os.environ.setdefault("DYNAMODB_READ_TIMEOUT", "60")
        os.environ.setdefault("DYNAMODB_MAX_ATTEMPTS", "5")
        # The test client speaks plain HTTP: no TLS redirect, no secure-only cookies.
        os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
        os.environ["DJANGO_SESSION_COOKIE_SECURE"] = "false"
        os.environ["DJANGO_CSRF_COOKIE_SECURE"] = "false"

        import django

        django.setup()
        # One JSON log line per request would drown the report printed on stdout.
        logging.disable(logging.INFO)
        from django.core.management import call_command

        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("create_tables", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        yield running.endpoint


# The admin benchmarks' learner with skills, those skills, and their soft-deleted learner.
TARGET = "learner000042"
# A staff member's search by name: "Learner 42" and "Learner 420" … "Learner 429" match.
NAME_SEARCH = "learner 42"
TARGET_SKILLS = (("python", "Python"), ("go", "Go"), ("sql", "SQL"))
SOFT_DELETED = "learner000007"


@dataclass(frozen=True)
class Learner:
    """One benchmark learner's profile and statistics, as plain values."""

    username: str
    name: str
    email: str
    xp: int
    streak: int
    efficiency: float
    accuracy: float
    reminder: Any = None  # what `reminders` returned for this learner


def learners(count: int, *, seed: int = 42, reminders=None) -> Iterator[Learner]:
    """Yield the benchmark's learners: the same `count` learners for the same seed.

    Pure Python, so the Django anchor (bench/anchor) fills SQLite with the rows that
    write_learners writes to DynamoDB. `reminders(n, rng)` draws from the same generator.
    """
    rng = random.Random(seed)
    for n in range(count):
        username = f"learner{n:06d}"
        # Keyword arguments are evaluated in order: the draws stay in this order.
        yield Learner(
            username,
            name=f"Learner {n}",
            email=f"{username}@example.com",
            xp=int(rng.paretovariate(1.2) * 100),
            streak=rng.randrange(0, 60),
            efficiency=round(rng.uniform(0, 100), 1),
            accuracy=round(rng.uniform(20, 100), 1),
            reminder=reminders(n, rng) if reminders is not None else None,
        )


def write_learners(count: int, *, shards: int = 1, seed: int = 42, reminders=None) -> float:
    """Write `count` users, their search words and stats in parallel batches; return seconds."""
    from dynamo.batch import put_request
    from dynamo.models import utcnow
    from dynamo.parallel import write_batches
    from stats.models import UserStats, leaderboard_partition_for
    from users.models import LearnerWord, User

    now = utcnow()

    def batches():
        users, stats, words = [], [], []
        for learner in learners(count, seed=seed, reminders=reminders):
            user = User(learner.username, name=learner.name, email=learner.email)
            user.created_at = user.updated_at = now
            user.created_month = now.strftime("%Y-%m")
            user.version = 1
            item = UserStats(
                learner.username,
                name=learner.name,
                xp=learner.xp,
                streak=learner.streak,
                efficiency=learner.efficiency,
                accuracy=learner.accuracy,
                leaderboard_partition=leaderboard_partition_for(learner.username, shards),
                created_at=now,
                updated_at=now,
                version=1,
            )
            if reminders is not None:
                item.schedule_reminder(learner.reminder)
            users.append(put_request(user))
            stats.append(put_request(item))
            # The learner search's words, as every write path keeps them.
            words += [put_request(entry) for entry in LearnerWord.owned_entries(user)]
            if len(stats) == 25:
                yield User, users
                yield UserStats, stats
                users, stats = [], []
            while len(words) >= 25:
                yield LearnerWord, words[:25]
                words = words[25:]
        if stats:
            yield User, users
            yield UserStats, stats
        if words:
            yield LearnerWord, words

    started = time.perf_counter()
    write_batches(batches(), threads=8)
    return time.perf_counter() - started


def write_holdings(skill, levels: Iterator[tuple[str, int]]) -> float:
    """Store learner000000… as holders of a saved catalog skill, one (proficiency, years) each.

    The items are what the write paths store (catalog copies, level, listing), written 25 to
    a BatchWriteItem from 8 threads; return the seconds it took.
    """
    from dynamo.batch import put_request
    from dynamo.models import utcnow
    from dynamo.parallel import write_batches
    from users.models import LEVELS, UserSkill

    now = utcnow()

    def batches():
        chunk = []
        for n, (proficiency, years) in enumerate(levels):
            holding = UserSkill(
                f"learner{n:06d}",
                skill.skill_id,
                skill_name=skill.name,
                category=skill.category,
                proficiency=proficiency,
                years=years,
                level=LEVELS[proficiency],
                listed_skill_name=skill.name,
                created_at=now,
                updated_at=now,
                version=1,
            )
            chunk.append(put_request(holding))
            if len(chunk) == 25:
                yield UserSkill, chunk
                chunk = []
        if chunk:
            yield UserSkill, chunk

    started = time.perf_counter()
    write_batches(batches(), threads=8)
    return time.perf_counter() - started


def timed(function, *args, **kwargs):
    """Run a function under a fresh meter; return (result, meter, milliseconds)."""
    from dynamo import meter

    with meter.metered() as metered:
        started = time.perf_counter()
        result = function(*args, **kwargs)
        elapsed = (time.perf_counter() - started) * 1000
    return result, metered, elapsed
