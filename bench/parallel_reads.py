"""The pages whose reads go out at once (`dynamo.parallel.in_parallel`), against the same pages
with those reads made one after the other, on DynamoDB Local.

Run: .venv/bin/python bench/parallel_reads.py [--users 1000] [--shards 4] [--rounds 40]
N learners, one given three skills, the score tiers rebuilt; then rounds, the first five
unrecorded, each page served through Django's test client (a superuser for the admin's) once
each way, the way that goes first alternating round by round. Prints a Markdown table: p50 of
each way, the ratio, and the page's DynamoDB calls. A page that makes one read never uses
threads: its ratio shows the run's noise.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time

from common import TARGET, TARGET_SKILLS, engine, write_learners

WARMUP = 5


def one_after_the_other(calls):
    return [call() for call in calls]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    os.environ["LEADERBOARD_CACHE_SECONDS"] = "0"  # every request reads
    os.environ["LEADERBOARD_SHARDS"] = str(args.shards)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"  # never the project's
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    with engine():
        from django.contrib.auth.models import User as Staff
        from django.core.management import call_command
        from django.test import Client

        from catalog.models import Skill
        from dynamo import parallel
        from users.models import User, UserSkill

        write_learners(args.users, shards=args.shards)
        user = User.get(TARGET)
        for skill_id, name in TARGET_SKILLS:
            skill = Skill(skill_id, name=name, category="Programming")
            skill.save()
            UserSkill.for_catalog(user.username, skill, proficiency="Advanced", years=4).save()
        call_command("rebuild_rank_tiers", stdout=io.StringIO())
        call_command("migrate", verbosity=0)
        staff = Staff.objects.create_superuser(f"bench{time.time_ns()}", "b@example.com", None)
        client = Client()
        client.force_login(staff)
        # Every module that imported in_parallel, so either way is one assignment per module.
        at_once = parallel.in_parallel
        users_of = [
            m for m in list(sys.modules.values()) if getattr(m, "in_parallel", 0) is at_once
        ]

        def use(way) -> None:
            for module in users_of:
                module.in_parallel = way

        pages = {
            "a learner's page": f"/learners/{TARGET}/",
            "the leaderboard": "/leaderboard/",
            "talent search": "/skills/search/?skill=Python",
            "admin: learner change page": f"/admin/users/user/{TARGET}/change/",
            "admin: skills by name (a Query per category)": "/admin/catalog/skill/",
            "admin: user-stats by XP (a Query per shard)": "/admin/stats/userstats/?o=2",
        }
        ways = {"at once": at_once, "one after the other": one_after_the_other}
        samples = {(page, way): [] for page in pages for way in ways}
        calls = {}
        for round_number in range(WARMUP + args.rounds):
            order = list(ways.items())
            if round_number % 2:
                order.reverse()
            for page, path in pages.items():
                for way, function in order:
                    use(function)
                    started = time.perf_counter()
                    response = client.get(path)
                    elapsed = (time.perf_counter() - started) * 1000
                    assert response.status_code == 200, (path, response.status_code)
                    calls[page] = response.wsgi_request.dynamo_meter.count
                    if round_number >= WARMUP:
                        samples[(page, way)].append(elapsed)
        use(at_once)
    print(
        f"# Reads at once or one after the other, {args.users:,} learners, {args.shards} shards\n"
    )
    print(
        f"Command: `.venv/bin/python bench/parallel_reads.py --users {args.users} "
        f"--shards {args.shards} --rounds {args.rounds}`; load average at the end "
        f"{os.getloadavg()[0]:.1f}\n"
    )
    print("| page | calls | at once p50 ms | one after the other p50 ms | ratio |")
    print("|---|---:|---:|---:|---:|")
    for page in pages:
        fast = statistics.median(samples[(page, "at once")])
        slow = statistics.median(samples[(page, "one after the other")])
        print(f"| {page} | {calls[page]} | {fast:.1f} | {slow:.1f} | {slow / fast:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
