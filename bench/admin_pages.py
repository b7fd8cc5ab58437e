"""The admin's learner pages on DynamoDB Local, beside Django's admin on PostgreSQL and SQLite.

Run: .venv/bin/python bench/admin_pages.py [--users 1000] [--rounds 30] [--warmup 10]
                                            [--engine-warmup 300] [--json FILE]
DynamoDB Local in memory, fresh tables, the learners written, one learner given three
skills, one soft-deleted. Two anchors fill their databases meanwhile, each in a child process
(bench/anchor: Django's own admin with the same options and inlines over the same rows): one
on PostgreSQL, a throwaway cluster this bench starts on loopback and stops after
(servers.postgresql, the many-host tests' cluster), one on SQLite. Then `--engine-warmup`
rounds of Skillboard's pages, its save and their floors alone: DynamoDB Local runs on the JVM,
whose calls take up to three times as long until they have run a few hundred times, where
PostgreSQL, SQLite and CPython take the same time from the first round (bench/RESULTS.md, "The
change page and its save (2026-12-06)"). Then rounds, the first `--warmup` of them unrecorded
on every side alike (templates compiled, connections open): each page on Skillboard in process
through Django's test client as a superuser, on the PostgreSQL anchor and on the SQLite anchor
(the three take turns at going first, round by round), then the boto3 calls that fetch the
same rows (the floor).

The pages, as the table's rows and the `--json` keys name them: changelist (the first page),
cursor (the next page), filtered (the soft-deleted), searched (by username), searched by name,
date hierarchy (this month), change (the learner's change page), save (its POST, renaming
the learner). Prints a Markdown table: p50 and p95 of each side, Skillboard's p50 over each
anchor's, DynamoDB calls and read/write capacity, and each anchor's SQL queries
(bench/results/admin_pages.md holds the last ones). `--json FILE` writes the p50s:
{"change": {"dynamo_ms": ..., "postgresql_ms": ..., "sqlite_ms": ...}, ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchor.serve import Anchor
from browser import change_form_data
from common import NAME_SEARCH, SOFT_DELETED, TARGET, TARGET_SKILLS, engine, write_learners

# The goals, against Django's admin on PostgreSQL at p50: every page within 1x, the save 1.5x.
PAGE_GOAL = 1.0
SAVE_GOAL = 1.5
# The anchors' databases (anchor.serve's --database), as the --json keys name them.
DATABASES = ("postgresql", "sqlite")


def goal(page: str) -> float:
    """Return the most Skillboard's p50 of a page may be, as a multiple of PostgreSQL's."""
    return SAVE_GOAL if page == "save" else PAGE_GOAL


def prepare(users: int) -> None:
    from catalog.models import Skill
    from users.models import User, UserSkill

    write_learners(users)
    user = User.get(TARGET)
    for skill_id, name in TARGET_SKILLS:
        skill = Skill(skill_id, name=name, category="Programming")
        skill.save()
        UserSkill.for_catalog(user.username, skill, proficiency="Advanced", years=4).save()
    # One soft-deleted learner, so the filter lists something.
    User.get(SOFT_DELETED).soft_delete()


def owners_of_word(client, prefix: str, word: str) -> None:
    """Query a word's staff entries, then BatchGetItem their owners if there are any."""
    entries = client.query(
        TableName=f"{prefix}learner-words",
        KeyConditionExpression="#h = :h AND begins_with(#e, :t)",
        ExpressionAttributeNames={"#h": "head", "#e": "entry"},
        ExpressionAttributeValues={":h": {"S": word[:2]}, ":t": {"S": word}},
        Limit=51,
    )["Items"]
    # The save renames the learner every round: below 420 learners no one is left with the
    # word "42", and a BatchGetItem of no keys is refused, where the page lists nothing.
    if entries:
        client.batch_get_item(
            RequestItems={
                f"{prefix}users": {"Keys": [{"username": item["owner"]} for item in entries]}
            }
        )


def floors(client, prefix: str) -> dict:
    """Return the bare boto3 call behind each page (no Django, no PynamoDB)."""
    users, skills, stats = (f"{prefix}users", f"{prefix}user-skills", f"{prefix}user-stats")
    month = time.strftime("%Y-%m", time.gmtime())
    first = client.scan(TableName=users, Limit=100)
    start = first.get("LastEvaluatedKey")
    return {
        "changelist": lambda: client.scan(TableName=users, Limit=100),
        "cursor": lambda: client.scan(TableName=users, Limit=100, ExclusiveStartKey=start),
        "filtered": lambda: client.scan(TableName=users, IndexName="gsi_deleted_at", Limit=100),
        "searched": lambda: client.get_item(TableName=users, Key={"username": {"S": TARGET}}),
        "searched by name": lambda: owners_of_word(client, prefix, "42"),
        "date hierarchy": lambda: client.query(
            TableName=users,
            IndexName="gsi_created_month",
            KeyConditionExpression="created_month = :m",
            ExpressionAttributeValues={":m": {"S": month}},
            ScanIndexForward=False,
            Limit=100,
        ),
        "change": lambda: (
            client.get_item(TableName=users, Key={"username": {"S": TARGET}}),
            client.query(
                TableName=skills,
                KeyConditionExpression="username = :u",
                ExpressionAttributeValues={":u": {"S": TARGET}},
            ),
            client.get_item(TableName=stats, Key={"username": {"S": TARGET}}),
        ),
    }


def spread(samples: list[float]) -> str:
    """Write the p50 and p95 of at least two samples as two table cells."""
    p50, p95 = statistics.median(samples), statistics.quantiles(samples, n=20)[18]
    return f"{p50:.1f} | {p95:.1f}"


def ratio(times: float) -> str:
    """Write a multiple: `2.31x`, `0.81x`, or `0.041x` below 0.1."""
    return f"{times:.2f}x" if times >= 0.1 else f"{times:.2g}x"


@dataclass
class Timings:
    """What the rounds measured, page by page."""

    skillboard: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    anchors: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {database: defaultdict(list) for database in DATABASES}
    )
    floor: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cost: dict[str, tuple[str, str]] = field(default_factory=dict)  # DynamoDB calls, capacity
    queries: dict[str, dict[str, int]] = field(  # each anchor's SQL queries
        default_factory=lambda: {database: {} for database in DATABASES}
    )

    def without_first(self, count: int) -> None:
        """Forget the first `count` rounds of every page (the warm-up)."""
        for samples in (self.skillboard, *self.anchors.values(), self.floor):
            for name in samples:
                del samples[name][:count]

    def versus(self, name: str, database: str) -> float:
        """Return Skillboard's p50 of a page as a multiple of an anchor's."""
        anchor = statistics.median(self.anchors[database][name])
        return statistics.median(self.skillboard[name]) / anchor

    def rows(self) -> list[str]:
        """Return the Markdown table of every page."""
        rows = [
            "| page | p50 ms | p95 ms | PostgreSQL p50 ms | PostgreSQL p95 ms | vs PostgreSQL "
            "| goal | SQLite p50 ms | SQLite p95 ms | vs SQLite | boto3 floor p50 ms | vs floor "
            "| calls | capacity | PostgreSQL queries | SQLite queries |",
            "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
        ]
        for name, samples in self.skillboard.items():
            on_postgresql, on_sqlite = self.versus(name, "postgresql"), self.versus(name, "sqlite")
            met = "met" if on_postgresql <= goal(name) else "**missed**"
            floor = "- | -"
            if name in self.floor:
                bare = statistics.median(self.floor[name])
                floor = f"{bare:.1f} | {ratio(statistics.median(samples) / bare)}"
            calls, capacity = self.cost[name]
            rows.append(
                f"| {name} | {spread(samples)} | {spread(self.anchors['postgresql'][name])} "
                f"| {ratio(on_postgresql)} | ≤ {goal(name):g}x {met} "
                f"| {spread(self.anchors['sqlite'][name])} | {ratio(on_sqlite)} | {floor} "
                f"| {calls} | {capacity} | {self.queries['postgresql'][name]} "
                f"| {self.queries['sqlite'][name]} |"
            )
        return rows

    def goals(self) -> str:
        """Return the sentence that says which pages are within their goals and which not."""
        missed = [
            f"{name} {ratio(self.versus(name, 'postgresql'))} (goal: within {goal(name):g}x)"
            for name in self.skillboard
            if self.versus(name, "postgresql") > goal(name)
        ]
        within = len(self.skillboard) - len(missed)
        line = f"{within} of {len(self.skillboard)} pages within their goals"
        return f"{line}; above: {', '.join(missed)}" if missed else line

    def medians(self) -> dict[str, dict[str, float]]:
        """Return each page's p50 on every side, as `--json` writes them."""
        return {
            name: {
                "dynamo_ms": round(statistics.median(samples), 2),
                **{
                    f"{database}_ms": round(statistics.median(self.anchors[database][name]), 2)
                    for database in DATABASES
                },
            }
            for name, samples in self.skillboard.items()
        }


def measure(users: int, rounds: int, warmup: int, engine_warmup: int, out: list[str]) -> Timings:
    import boto3
    import psycopg
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from servers import postgresql

    print("admin pages: starting PostgreSQL", file=sys.stderr)
    with (
        postgresql() as url,
        # Both fill their databases while DynamoDB Local is written.
        Anchor(users, url) as on_postgresql,
        Anchor(users, "sqlite") as on_sqlite,
    ):
        anchors = {"postgresql": on_postgresql, "sqlite": on_sqlite}
        with psycopg.connect(url) as connection:
            version = connection.info.server_version
        started = time.perf_counter()
        prepare(users)
        written = time.perf_counter() - started
        print("admin pages: waiting for the Django anchors' rows", file=sys.stderr)
        filled = {database: anchor.wait_until_ready() for database, anchor in anchors.items()}
        admin, _ = get_user_model().objects.get_or_create(
            username="bench", defaults={"is_staff": True, "is_superuser": True}
        )
        web = Client()
        web.force_login(admin)
        boto = boto3.client(
            "dynamodb",
            endpoint_url=settings.DYNAMODB_ENDPOINT,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        floor = floors(boto, settings.DYNAMODB_TABLE_PREFIX)
        print(f"admin pages: {engine_warmup} rounds to warm DynamoDB Local", file=sys.stderr)
        warm_engine(web, floor, engine_warmup)
        timings = measure_rounds(web, anchors, floor, warmup + rounds)
        timings.without_first(warmup)
    out.append(f"\n### {users:,} learners\n")
    out.append(
        f"Learners written to DynamoDB Local in {written:.0f} s, to the anchors' PostgreSQL "
        f"{version // 10000}.{version % 100} in {filled['postgresql']:.1f} s and SQLite in "
        f"{filled['sqlite']:.1f} s; {engine_warmup} rounds of Skillboard's pages alone to warm "
        f"DynamoDB Local, then {rounds} rounds after {warmup} unrecorded.\n"
    )
    out.extend(timings.rows())
    out.append(
        f"\nAt p50 against Django's admin on PostgreSQL: {timings.goals()}. The goals: every "
        f"page within {PAGE_GOAL:g}x, the save within {SAVE_GOAL:g}x."
    )
    out.append(
        "\n*vs PostgreSQL* and *vs SQLite* are Skillboard's p50 over that anchor's. The "
        "anchors' changelist, next page and date hierarchy include Django's date hierarchy, "
        "which lists the days that have sign-ups: a DISTINCT over every learner of the month "
        "(all of them here), one Python call a row in SQLite, PostgreSQL's own date_trunc; "
        "Skillboard's lists the months without reading. Their next page is Django's `?p=2` "
        "(an offset), Skillboard's a cursor. PostgreSQL runs on loopback without fsync, "
        "SQLite in WAL without a sync per commit, DynamoDB Local in memory."
    )
    return timings


def skillboard_pages(web) -> dict[str, str]:
    """Return the path of each measured page but the save (the next page's from the first)."""
    first = web.get("/admin/users/user/").content.decode()
    cursor = re.search(r'rel="next" href="([^"]+)"', first) or re.search(
        r'href="([^"]+)" rel="next"', first
    )
    month = time.strftime("%Y-%m", time.gmtime())
    return {
        "changelist": "/admin/users/user/",
        "cursor": "/admin/users/user/" + cursor.group(1).replace("&amp;", "&"),
        "filtered": "/admin/users/user/?deleted=yes",
        "searched": f"/admin/users/user/?q={TARGET}",
        "searched by name": f"/admin/users/user/?q={NAME_SEARCH.replace(' ', '+')}",
        "date hierarchy": f"/admin/users/user/?created_month={month}",
        "change": f"/admin/users/user/{TARGET}/change/",
    }


def save(web, path: str, name: str) -> tuple[Any, float]:
    """Post the change page back with the learner renamed; return the response and its ms."""
    data = change_form_data(web.get(path).content.decode(), name=name)
    started = time.perf_counter()
    response = web.post(path, data)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 302, re.findall(
        r"errorlist[^<]*<li>[^<]*", response.content.decode()
    )
    return response, elapsed


def warm_engine(web, floor: dict, rounds: int) -> None:
    """Request Skillboard's pages, its save and their floors, unrecorded, `rounds` times."""
    pages = skillboard_pages(web)
    for round_number in range(rounds):
        for path in pages.values():
            web.get(path)
        save(web, pages["change"], f"Learner {round_number}")
        for call in floor.values():
            call()
    if rounds:  # the name the anchor's learner has until the first round's save
        save(web, pages["change"], "Learner 42")


def measure_rounds(web, anchors: dict[str, Anchor], floor: dict, rounds: int) -> Timings:
    """Run the rounds: each page on Skillboard and on each anchor, then its boto3 floor."""
    pages = skillboard_pages(web)
    timings = Timings()

    def on_skillboard(name: str, round_number: int) -> None:
        if name == "save":  # both sides rename the learner to the same name each round
            response, elapsed = save(web, pages["change"], f"Learner {round_number}")
        else:
            started = time.perf_counter()
            response = web.get(pages[name])
            elapsed = (time.perf_counter() - started) * 1000
            assert response.status_code == 200, (pages[name], response.status_code)
        timings.skillboard[name].append(elapsed)
        timings.cost[name] = (response["X-DynamoDB-Calls"], response["X-DynamoDB-Capacity"])

    def on_anchor(database: str, name: str) -> None:
        response = anchors[database].request(name)
        status = 302 if name == "save" else 200
        if response.status != status:
            raise RuntimeError(
                f"The {database} anchor's {name} answered {response.status}, not {status}."
            )
        timings.anchors[database][name].append(response.milliseconds)
        timings.queries[database][name] = response.queries

    sides = ["skillboard", *DATABASES]
    for round_number in range(rounds):
        # The sides take turns at going first, so none always runs right after another's work.
        turn = round_number % len(sides)
        order = sides[turn:] + sides[:turn]
        for name in [*pages, "save"]:
            for side in order:
                if side == "skillboard":
                    on_skillboard(name, round_number)
                else:
                    on_anchor(side, name)
            if name in floor:
                started = time.perf_counter()
                floor[name]()
                timings.floor[name].append((time.perf_counter() - started) * 1000)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=int(os.environ.get("BENCH_USERS", 1000)))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--warmup", type=int, default=10, help="rounds run first and not recorded (every side)"
    )
    parser.add_argument(
        "--engine-warmup",
        type=int,
        default=300,
        help="rounds of Skillboard's pages alone, first, to warm DynamoDB Local's JIT",
    )
    parser.add_argument("--json", type=Path, help="write each page's p50 on every side here")
    args = parser.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        # Django's own tables (the staff login) in a throwaway SQLite file.
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"
        with engine():
            from django.core.management import call_command

            print(f"admin pages: writing {args.users:,} learners", file=sys.stderr)
            call_command("migrate", verbosity=0)
            timings = measure(args.users, args.rounds, args.warmup, args.engine_warmup, out)
    print("\n".join(out))
    if args.json:
        args.json.write_text(json.dumps(timings.medians(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
