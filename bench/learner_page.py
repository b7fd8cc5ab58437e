"""A learner's page on DynamoDB Local: calls, RCU and time for a learner with a year of history.

Run: .venv/bin/python bench/learner_page.py [--users 100000] [--per-day 2]
Prints a Markdown report. N learners (users and stats, as the other stats benchmarks write
them), then two of them get a year of study sessions through `record_session` (--per-day a
day, each with its transaction) and three skills: the one at the top of the XP board and one
near the bottom, where counting the learners above used to cost most. The score tiers are then
rebuilt (`rebuild_rank_tiers`, as the schedule does), so the ranks are read as in production.
Each figure is the median of 5 uncached requests through Django's test client, after one to
warm up.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from datetime import timedelta

from common import engine, write_learners

REPEATS = 5


def give_a_year(username: str, per_day: int) -> int:
    """Record `per_day` sessions on each of the last 364 days for a learner; return how many."""
    from catalog.models import Skill
    from dynamo.models import utcnow
    from stats.history.recording import record_session
    from users.models import UserSkill

    now = utcnow()
    for skill_id, name in (("python", "Python"), ("go", "Go"), ("sql", "SQL")):
        skill = Skill.get_or_none(skill_id) or Skill(skill_id, name=name, category="Programming")
        if skill.version is None:
            skill.save()
        UserSkill.for_catalog(username, skill, proficiency="Advanced", years=3).save()
    recorded = 0
    for days_ago in range(364):
        for n in range(per_day):
            when = now - timedelta(days=days_ago, hours=n)
            record_session(username, xp=40, questions=10, correct=8, minutes=15, when=when)
            recorded += 1
    return recorded


def measure(client, path: str) -> dict[str, float]:
    client.get(path)
    samples, calls, units, ranks = [], 0, 0.0, 0.0
    for _ in range(REPEATS):
        started = time.perf_counter()
        response = client.get(path)
        samples.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
        metered = response.wsgi_request.dynamo_meter
        calls, units = metered.count, metered.read_units
        ranks = sum(
            call.read_units
            for call in metered.calls
            if any("gsi_leaderboard_" in target for _, target in call.targets)
        )
    return {"ms": statistics.median(samples), "calls": calls, "rcu": units, "ranks": ranks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--per-day", type=int, default=2)
    args = parser.parse_args()
    os.environ["LEADERBOARD_CACHE_SECONDS"] = "0"  # every request reads
    with engine():
        from django.core.management import call_command
        from django.test import Client

        from stats.boards.ranking import top
        from stats.models import UserStats

        write_learners(args.users)
        top_learner = top("xp", limit=1).rows[0].username
        low = min(
            (s for s in UserStats.scan(page_size=1000) if s.xp > 0), key=lambda s: s.xp
        ).username
        learners = (("top of the XP board", top_learner), ("near the bottom", low))
        sessions = {username: give_a_year(username, args.per_day) for _, username in learners}
        call_command("rebuild_rank_tiers", stdout=io.StringIO())
        rows = []
        for label, username in learners:
            client = Client()
            html = measure(client, f"/learners/{username}/")
            data = measure(client, f"/learners/{username}/?format=json")
            rows.append((label, username, sessions[username], html, data))
    print(f"# A learner's page, {args.users:,} learners\n")
    command = f"bench/learner_page.py --users {args.users} --per-day {args.per_day}"
    print(f"Command: `.venv/bin/python {command}`\n")
    print(
        "| learner | sessions | page ms | calls | RCU | of it the ranks | JSON ms | calls | RCU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, username, sessions, html, data in rows:
        print(
            f"| {username} ({label}) | {sessions:,} | {html['ms']:.0f} | {html['calls']} | "
            f"{html['rcu']:g} | {html['ranks']:g} | {data['ms']:.0f} | {data['calls']} | "
            f"{data['rcu']:g} |"
        )
    print(
        "\nThe ranks come from the score tiers (`stats.boards.ranking.rank_infos`): the four "
        "boards' tier pointers, with their kept counts, and the upkeep's marker in the page's "
        "one BatchGetItem (with the learner and their stats), then per board and shard one "
        "COUNT of the higher scores inside the learner's tier; 'of it the ranks' is the "
        "leaderboard indexes' share."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
