"""The admin's user pages on DynamoDB Local, each beside the bare boto3 call it makes (the floor).

Run: .venv/bin/python bench/admin_pages.py [--users 1000] [--rounds 30]
For each size: DynamoDB Local in memory, fresh tables, the learners written, one learner
given three skills; then, in process through Django's test client as a superuser, rounds
of each page (changelist first page, a page reached by cursor, filtered, searched, date
hierarchy, change page, save) interleaved with the one boto3 call that fetches the same
rows. Prints a Markdown table: p50 and p95, DynamoDB calls and read/write capacity.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from html.parser import HTMLParser

from common import engine, write_learners

TARGET = "learner000042"


class FormFields(HTMLParser):
    """Collect what a browser would post back from the page's change form."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data


def untouched_blank_rows(data: dict[str, str]) -> dict[str, str]:
    """Drop the inlines' blank extra rows, as a browser posts them when nobody typed in them."""
    data = dict(data)
    for key in [k for k in data if k.endswith("-INITIAL_FORMS")]:
        prefix, initial = key.removesuffix("-INITIAL_FORMS"), int(data[key])
        data[f"{prefix}-TOTAL_FORMS"] = str(initial)
        for name in list(data):
            match = re.fullmatch(rf"{re.escape(prefix)}-(\d+)-.*", name)
            if match and int(match.group(1)) >= initial:
                del data[name]
    return data


def prepare(users: int) -> None:
    from catalog.models import Skill
    from users.models import User, UserSkill

    write_learners(users)
    user = User.get(TARGET)
    for skill_id, name in (("python", "Python"), ("go", "Go"), ("sql", "SQL")):
        skill = Skill(skill_id, name=name, category="Programming")
        skill.save()
        UserSkill.for_catalog(user.username, skill, proficiency="Advanced", years=4).save()
    # One soft-deleted learner, so the filter lists something.
    User.get("learner000007").soft_delete()


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


def measure(users: int, rounds: int, out: list[str]) -> None:
    import boto3
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    prepare(users)
    admin, _ = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    web = Client()
    web.force_login(admin)
    first = web.get("/admin/users/user/").content.decode()
    cursor = re.search(r'rel="next" href="([^"]+)"', first) or re.search(
        r'href="([^"]+)" rel="next"', first
    )
    change = f"/admin/users/user/{TARGET}/change/"
    month = time.strftime("%Y-%m", time.gmtime())
    pages = {
        "changelist": "/admin/users/user/",
        "cursor": "/admin/users/user/" + cursor.group(1).replace("&amp;", "&"),
        "filtered": "/admin/users/user/?deleted=yes",
        "searched": f"/admin/users/user/?q={TARGET}",
        "date hierarchy": f"/admin/users/user/?created_month={month}",
        "change page": change,
    }
    boto = boto3.client(
        "dynamodb",
        endpoint_url=settings.DYNAMODB_ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    floor = floors(boto, settings.DYNAMODB_TABLE_PREFIX)
    times: dict[str, list[float]] = {name: [] for name in [*pages, "save"]}
    floor_times: dict[str, list[float]] = {name: [] for name in floor}
    cost: dict[str, tuple[str, str]] = {}
    for _ in range(rounds):  # interleaved: one of each page per round
        for name, path in pages.items():
            started = time.perf_counter()
            response = web.get(path)
            times[name].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
            cost[name] = (response["X-DynamoDB-Calls"], response["X-DynamoDB-Capacity"])
            started = time.perf_counter()
            floor[name]()
            floor_times[name].append((time.perf_counter() - started) * 1000)
        form = FormFields()
        form.feed(web.get(change).content.decode())
        data = untouched_blank_rows(form.data)
        data |= {"name": f"Learner {len(times['save'])}", "_save": "Save"}
        started = time.perf_counter()
        response = web.post(change, data)
        times["save"].append((time.perf_counter() - started) * 1000)
        assert response.status_code == 302, re.findall(
            r"errorlist[^<]*<li>[^<]*", response.content.decode()
        )
        cost["save"] = (response["X-DynamoDB-Calls"], response["X-DynamoDB-Capacity"])
    out.append(f"\n### {users:,} learners\n")
    out.append("| page | p50 ms | p95 ms | boto3 floor p50 ms | ratio | calls | capacity |")
    out.append("|---|---:|---:|---:|---:|---:|---|")
    for name, samples in times.items():
        p50, p95 = statistics.median(samples), statistics.quantiles(samples, n=20)[18]
        if name in floor_times:
            bare = statistics.median(floor_times[name])
            cells = f"{bare:.1f} | {p50 / bare:.1f}x"
        else:
            cells = "- | -"
        calls, capacity = cost[name]
        out.append(f"| {name} | {p50:.1f} | {p95:.1f} | {cells} | {calls} | {capacity} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=int(os.environ.get("BENCH_USERS", 1000)))
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        # Django's own tables (the staff login) in a throwaway SQLite file.
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"
        with engine():
            from django.core.management import call_command

            print(f"admin pages: writing {args.users:,} learners", file=sys.stderr)
            call_command("migrate", verbosity=0)
            measure(args.users, args.rounds, out)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
