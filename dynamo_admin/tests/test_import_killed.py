"""`manage.py import_items` killed with SIGKILL at random moments, as a real process of the
example project on DynamoDB Local: each book it changed has its History entry and each book it
did not change has none (the write and its entry are one transaction), and running it again
writes the rest, every row reported once overall.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import library_site
import pytest
from library.models import Book, Shelf

import dynamo_admin
from dynamo import local, tables
from dynamo.batch import batch_put
from dynamo.models import configure
from dynamo_admin.csvfiles import csv_lines
from dynamo_admin.models import AdminLog, object_key_for

from .budget import examples
from .engines import tables_dropped_after

PROJECT = Path(library_site.__file__).resolve().parent.parent  # examples/library's manage.py
ROWS = 200
KILLS = max(2, examples(3))  # the first early, the rest at random
# Long enough for the project to start and plan 200 rows; the whole test stays under a minute.
WRITES_START_WITHIN = 30.0
RUN_WITHIN = 60.0


@dataclass
class Project:
    """The example project's tables on DynamoDB Local, and the environment its manage.py runs in."""

    engine: local.Engine
    env: dict[str, str]

    def scan(self, model) -> list[dict]:
        """Return every item of a table as stored (a test's table of a few hundred items)."""
        client, items, start = self.engine.client, [], {}
        while True:
            page = client.scan(TableName=model.Meta.table_name, ConsistentRead=True, **start)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                return items
            start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}

    @contextmanager
    def import_items(self, path: Path) -> Iterator[subprocess.Popen]:
        """Run `manage.py import_items library.Book path`; whatever happens, it is gone after."""
        process = subprocess.Popen(
            [sys.executable, "manage.py", "import_items", "library.Book", str(path)],
            cwd=PROJECT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()

    def entries_written(self) -> int:
        """Return how many History entries the imports have written (one per row written)."""
        return self.engine.client.query(
            TableName=AdminLog.Meta.table_name,
            IndexName="gsi_user_logged_at",
            KeyConditionExpression="#u = :u",
            ExpressionAttributeNames={"#u": "user"},
            ExpressionAttributeValues={":u": {"S": "import_items"}},
            Select="COUNT",
        )["Count"]


@pytest.fixture
def project(dynamodb_local, tmp_path) -> Iterator[Project]:
    """The library's tables under a prefix of their own, 200 books on four shelves at version 1."""
    prefix = f"killed-{uuid.uuid4().hex[:8]}-"
    with tables_dropped_after(dynamodb_local) as engine:
        configure(endpoint=engine.endpoint, region="us-east-1", prefix=prefix)
        try:
            for model in (Shelf, Book, AdminLog):
                tables.create_missing(model)
            batch_put(Shelf, [Shelf(f"K{s}", name=f"Shelf K{s}") for s in range(4)])
            batch_put(Book, [book(n) for n in range(ROWS)])
            source = Path(dynamo_admin.__file__).resolve().parent.parent
            env = {
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "library_site.settings",
                "DYNAMODB_ENDPOINT": engine.endpoint,
                "DYNAMODB_TABLE_PREFIX": prefix,
                "AWS_REGION": "us-east-1",
                "LIBRARY_DATABASE": str(tmp_path / "db.sqlite3"),
                "PYTHONPATH": os.pathsep.join(
                    filter(None, [str(source), os.environ.get("PYTHONPATH")])
                ),
                "PYTHONUNBUFFERED": "1",
            }
            yield Project(engine, env)
        finally:
            configure()  # the settings' engine and prefix again, for the tests after this one


def book(n: int) -> Book:
    return Book(f"K{n % 4}", f"97800000{n:05d}", title=f"Book {n}", genre="Fiction", copies=1)


def changed_rows(path: Path) -> Path:
    """Write a CSV changing every book's copies from 1 to 2."""
    rows = [[b.shelf, b.isbn, b.title, b.genre, "2"] for b in map(book, range(ROWS))]
    path.write_text("".join(csv_lines([["shelf", "isbn", "title", "genre", "copies"], *rows])))
    return path


def kill_at_random(process: subprocess.Popen, project: Project, rng: random.Random, early: bool):
    """SIGKILL the import at a random moment: early, during start-up and planning; else once
    it has begun writing, somewhere in its next second."""
    started, written = time.monotonic(), project.entries_written()
    if early:
        time.sleep(rng.uniform(0.0, 1.5))
    else:
        while project.entries_written() == written and process.poll() is None:
            assert time.monotonic() - started < WRITES_START_WITHIN, "no write began"
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 1.0))
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait(timeout=RUN_WITHIN)
    time.sleep(0.3)  # a transaction the engine had received commits, or not, before we look


def assert_both_or_neither(project: Project) -> int:
    """Assert each book holds the new copies at the next version with one History entry, or
    neither; return how many do."""
    books = {
        object_key_for(Book(item["shelf"]["S"], item["isbn"]["S"])): item
        for item in project.scan(Book)
    }
    entries = Counter()
    for entry in project.scan(AdminLog):
        assert (entry["action"]["S"], entry["user"]["S"]) == ("change", "import_items")
        entries[entry["object_key"]["S"]] += 1
    assert len(books) == ROWS
    assert set(entries) <= set(books)  # no entry without its item
    for key, item in books.items():
        state = (int(item["version"]["N"]), int(item["copies"]["N"]), entries[key])
        assert state in ((1, 1, 0), (2, 2, 1)), (key, state)
    return sum(entries.values())


def test_a_killed_import_leaves_each_item_with_its_entry_or_neither_and_resumes(project, tmp_path):
    path = changed_rows(tmp_path / "books.csv")
    seed = random.randrange(2**32)
    print(f"kill moments drawn from random.Random({seed})")  # shown if the test fails
    rng = random.Random(seed)
    done = 0

    for run in range(KILLS):
        with project.import_items(path) as process:
            kill_at_random(process, project, rng, early=run == 0)
        now = assert_both_or_neither(project)
        assert now >= done
        done = now

    with project.import_items(path) as finished:
        out, _ = finished.communicate(timeout=RUN_WITHIN)

    assert finished.returncode == 0, out[-2000:]
    # Every row once: the killed runs' as unchanged, the rest as changed now.
    assert f"Imported: 0 new, {ROWS - done} changed, {done} unchanged, 0 refused" in out
    assert assert_both_or_neither(project) == ROWS
