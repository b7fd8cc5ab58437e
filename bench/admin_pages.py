"""The admin's user pages on DynamoDB Local, beside Django's admin over SQLite and bare boto3.

Run: .venv/bin/python bench/admin_pages.py [--users 1000] [--rounds 30] [--warmup 10]
DynamoDB Local in memory, fresh tables, the learners written, one learner given three
skills, one soft-deleted; the Django anchor (bench/anchor: Django's own admin with the same
options and inlines over the same rows in SQLite, in a child process) fills its database
meanwhile. Then rounds, the first `--warmup` of them unrecorded on both sides alike
(templates compiled, connections open, DynamoDB Local's JIT warm): each page (changelist
first page, the next page, filtered, searched by username and by name, date hierarchy,
change page, save) on Skillboard in process through Django's test client as a superuser,
then the same page on the anchor, then the boto3 calls that fetch the same rows (the floor).
Prints a Markdown table: p50 and p95 of each, the ratios, DynamoDB calls and read/write
capacity, and the anchor's SQL queries.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field

from anchor.serve import Anchor
from browser import change_form_data
from common import NAME_SEARCH, SOFT_DELETED, TARGET, TARGET_SKILLS, engine, write_learners

# The goals: the learner's change page within 1x the anchor's, its save within 2x.
GOALS = {"change page": 1.0, "save": 2.0}


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
        "searched by name": lambda: client.batch_get_item(
            RequestItems={
                users: {
                    "Keys": [
                        {"username": item["owner"]}
                        for item in client.query(
                            TableName=f"{prefix}learner-words",
                            KeyConditionExpression="#h = :h AND begins_with(#e, :t)",
                            ExpressionAttributeNames={"#h": "head", "#e": "entry"},
                            ExpressionAttributeValues={":h": {"S": "42"}, ":t": {"S": "42"}},
                            Limit=51,
                        )["Items"]
                    ]
                }
            }
        ),
        "date hierarchy": lambda: client.query(
            TableName=users,
            IndexName="gsi_created_month",
            KeyConditionExpression="created_month = :m",
            ExpressionAttributeValues={":m": {"S": month}},
            ScanIndexForward=False,
            Limit=100,
        ),
        "change page": lambda: (
            client.get_item(TableName=users, Key={"username": {"S": TARGET}}),
            client.query(
                TableName=skills,
                KeyConditionExpression="username = :u",
                ExpressionAttributeValues={":u": {"S": TARGET}},
            ),
            client.get_item(TableName=stats, Key={"username": {"S": TARGET}}),
        ),
    }


def percentiles(samples: list[float]) -> tuple[float, float]:
    """Return the p50 and p95 of at least two samples."""
    return statistics.median(samples), statistics.quantiles(samples, n=20)[18]


def ratio(numerator: float, denominator: float) -> str:
    """Return how many times the denominator the numerator is: `2.3x`, or `0.041x` below 1."""
    times = numerator / denominator
    return f"{times:.1f}x" if times >= 1 else f"{times:.2g}x"


@dataclass
class Timings:
    """What the rounds measured, page by page."""

    skillboard: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    anchor: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    floor: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cost: dict[str, tuple[str, str]] = field(default_factory=dict)  # DynamoDB calls, capacity
    queries: dict[str, int] = field(default_factory=dict)  # the anchor's SQL queries

    def without_first(self, count: int) -> None:
        """Forget the first `count` rounds of every page (the warm-up)."""
        for samples in (self.skillboard, self.anchor, self.floor):
            for name in samples:
                del samples[name][:count]

    def rows(self) -> list[str]:
        """Return the Markdown table of every page."""
        rows = [
            "| page | p50 ms | p95 ms | anchor p50 ms | anchor p95 ms | vs anchor "
            "| boto3 floor p50 ms | vs floor | calls | capacity | anchor queries |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
        ]
        for name, samples in self.skillboard.items():
            p50, p95 = percentiles(samples)
            anchor_p50, anchor_p95 = percentiles(self.anchor[name])
            floor = "- | -"
            if name in self.floor:
                bare = statistics.median(self.floor[name])
                floor = f"{bare:.1f} | {ratio(p50, bare)}"
            calls, capacity = self.cost[name]
            rows.append(
                f"| {name} | {p50:.1f} | {p95:.1f} | {anchor_p50:.1f} | {anchor_p95:.1f} "
                f"| {self.versus_anchor(name)} | {floor} | {calls} | {capacity} "
                f"| {self.queries[name]} |"
            )
        return rows

    def goals(self) -> str:
        """Return the line that says where the change page and save stand against the goals."""
        return "; ".join(
            f"{name} {self.versus_anchor(name)} the anchor's (goal: within {limit:g}x)"
            for name, limit in GOALS.items()
        )

    def versus_anchor(self, name: str) -> str:
        """Return Skillboard's p50 of a page as a multiple of the anchor's."""
        return ratio(statistics.median(self.skillboard[name]), statistics.median(self.anchor[name]))


def measure(users: int, rounds: int, warmup: int, out: list[str]) -> None:
    import boto3
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    with Anchor(users) as anchor:  # it fills SQLite while DynamoDB Local is written
        started = time.perf_counter()
        prepare(users)
        written = time.perf_counter() - started
        print("admin pages: waiting for the Django anchor's rows", file=sys.stderr)
        anchor_filled = anchor.wait_until_ready()
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
        timings = measure_rounds(web, anchor, floor, warmup + rounds)
        timings.without_first(warmup)
    out.append(f"\n### {users:,} learners\n")
    out.append(
        f"Learners written to DynamoDB Local in {written:.0f} s, to the anchor's SQLite in "
        f"{anchor_filled:.1f} s; {rounds} rounds after {warmup} unrecorded.\n"
    )
    out.extend(timings.rows())
    out.append(f"\nAt p50: {timings.goals()}.")
    out.append(
        "\n*vs anchor* is Skillboard's p50 over the anchor's. The anchor's changelist, next "
        "page and date hierarchy include Django's date hierarchy, which lists the days that "
        "have sign-ups: a DISTINCT over every learner of the month (all of them here), one "
        "Python call a row in SQLite; Skillboard's lists the months without reading. Its "
        "next page is Django's `?p=2` (an offset), Skillboard's a cursor."
    )


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
        "change page": f"/admin/users/user/{TARGET}/change/",
    }


def measure_rounds(web, anchor: Anchor, floor: dict, rounds: int) -> Timings:
    """Run the rounds: each page on Skillboard, then on the anchor, then its boto3 floor."""
    pages = skillboard_pages(web)
    change = pages["change page"]
    timings = Timings()

    def on_anchor(name: str, status: int) -> None:
        response = anchor.request(name)
        if response.status != status:
            raise RuntimeError(f"The anchor's {name} answered {response.status}, not {status}.")
        timings.anchor[name].append(response.milliseconds)
        timings.queries[name] = response.queries

    for round_number in range(rounds):
        for name, path in pages.items():
            started = time.perf_counter()
            response = web.get(path)
            timings.skillboard[name].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
            timings.cost[name] = (response["X-DynamoDB-Calls"], response["X-DynamoDB-Capacity"])
            on_anchor(name, 200)
            started = time.perf_counter()
            floor[name]()
            timings.floor[name].append((time.perf_counter() - started) * 1000)
        # Both sides rename the learner to the same name each round.
        data = change_form_data(web.get(change).content.decode(), name=f"Learner {round_number}")
        started = time.perf_counter()
        response = web.post(change, data)
        timings.skillboard["save"].append((time.perf_counter() - started) * 1000)
        assert response.status_code == 302, re.findall(
            r"errorlist[^<]*<li>[^<]*", response.content.decode()
        )
        timings.cost["save"] = (response["X-DynamoDB-Calls"], response["X-DynamoDB-Capacity"])
        on_anchor("save", 302)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=int(os.environ.get("BENCH_USERS", 1000)))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--warmup", type=int, default=10, help="rounds run first and not recorded (both sides)"
    )
    args = parser.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        # Django's own tables (the staff login) in a throwaway SQLite file.
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"
        with engine():
            from django.core.management import call_command

            print(f"admin pages: writing {args.users:,} learners", file=sys.stderr)
            call_command("migrate", verbosity=0)
            measure(args.users, args.rounds, args.warmup, out)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
