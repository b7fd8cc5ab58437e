"""Fill the anchor's database with the rows bench/admin_pages.py writes to DynamoDB Local."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from common import SOFT_DELETED, TARGET, TARGET_SKILLS, learners
from django.db import connection, models, transaction
from django.utils import timezone

from .learners.models import Skill, User, UserSkill, UserStats

CHUNK = 5_000  # learners held in memory at a time


def insert(
    model: type[models.Model], given: Sequence[str], rows: Iterable[Sequence[Any]], **same: Any
) -> None:
    """INSERT the rows bulk_create would write, through one executemany.

    Each row gives the values of the fields named in `given` (str, int or float: stored as
    they are); every other column holds what bulk_create would store for an instance made
    with `same`, prepared once by its field instead of once a row, where bulk_create prepares
    every cell of 100,000 learners and their stats one by one.
    """
    template = model(**same)
    fields = model._meta.concrete_fields
    values = [f.get_db_prep_save(f.pre_save(template, add=True), connection) for f in fields]
    positions = [[f.name for f in fields].index(name) for name in given]

    def full_rows():
        for row in rows:
            for position, value in zip(positions, row, strict=True):
                values[position] = value
            yield tuple(values)

    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", full_rows())


def fill(count: int) -> float:
    """Write `count` learners with their stats, the target's skills and one soft delete.

    The learners and stats are what write_learners writes (same usernames, names, e-mails,
    figures and dates); the rest goes through the models' save(), as admin_pages.prepare()
    saves it. Return the seconds it took.
    """
    started = time.perf_counter()
    now = timezone.now()
    rows = learners(count)
    with transaction.atomic():
        while chunk := list(islice(rows, CHUNK)):
            insert(
                User,
                ["username", "name", "email"],
                [(learner.username, learner.name, learner.email) for learner in chunk],
                created_at=now,
                created_month=now.strftime("%Y-%m"),
            )
            insert(
                UserStats,
                ["username", "name", "xp", "streak", "efficiency", "accuracy"],
                [
                    (lr.username, lr.name, lr.xp, lr.streak, lr.efficiency, lr.accuracy)
                    for lr in chunk
                ],
                leaderboard_partition="ALL",
                created_at=now,
            )
    target = User.objects.get(pk=TARGET)
    for skill_id, name in TARGET_SKILLS:
        Skill.objects.create(skill_id=skill_id, name=name, category="Programming")
        holding = UserSkill(username=target, skill_id=skill_id, proficiency="Advanced", years=4)
        holding.full_clean()
        holding.save()
    deleted = User.objects.get(pk=SOFT_DELETED)
    deleted.deleted_at = timezone.now()
    deleted.save()
    with connection.cursor() as cursor:
        # Without statistics SQLite walks the ordering index to find the one soft-deleted
        # learner instead of reading the partial index; `PRAGMA optimize`, which SQLite asks
        # applications to run, would gather them as this does, and PostgreSQL's autovacuum soon
        # after a load.
        cursor.execute("ANALYZE")
    return time.perf_counter() - started
