"""Renaming the most-held skill on DynamoDB Local: the save, the worker, and a naive loop.

Writes the holders of one skill (34.54 % of the learners hold Python, as `seed` makes them:
34,540 at 100,000), the same items again under a copy of the skill, then measures:
- `Skill.save()` of the rename (what the admin's request waits for);
- `sync_user_skills --pending`, which rewrites the copies outside the request (parallel
  conditional UpdateItems over gsi_skill_id pages);
- the naive loop on the copy: for each holder, GetItem then PutItem, one after the other.

Run: .venv/bin/python bench/rename.py [--users 100000] [--threads 16]
Prints a Markdown report (bench/results/rename.md holds the last one).
"""

from __future__ import annotations

import argparse
import os
import sys
from io import StringIO

from common import engine, timed, write_holdings

# A loaded machine makes DynamoDB Local slow: wait for each call rather than resend it.
os.environ.setdefault("DYNAMODB_READ_TIMEOUT", "120")
os.environ.setdefault("DYNAMODB_MAX_ATTEMPTS", "5")

PYTHON_SHARE = 0.3454  # holders of Python per learner in the seeded demo data


def write_holders(skill_ids: list[str], holders: int) -> float:
    """Write `holders` user-skills for each skill, as the write paths store them."""
    from catalog.models import Skill
    from users.models import PROFICIENCIES

    seconds = 0.0
    for skill_id in skill_ids:
        skill = Skill(skill_id, name="Python", category="Programming")
        skill.save()
        levels = ((PROFICIENCIES[n % 4], n % 20) for n in range(holders))
        seconds += write_holdings(skill, levels)
    return seconds


def naive_rename(skill_id: str, name: str) -> int:
    """The naive way: for each holder, GetItem the user-skill, then PutItem it renamed."""
    from users.models import UserSkill

    client = UserSkill._get_connection().connection.client
    table = UserSkill.Meta.table_name
    rewritten = 0
    for holding in UserSkill.gsi_skill_id.query(skill_id):
        key = {"username": {"S": holding.username}, "skill_id": {"S": skill_id}}
        item = client.get_item(TableName=table, Key=key)["Item"]
        item["skill_name"] = item["listed_skill_name"] = {"S": name}
        client.put_item(TableName=table, Item=item)
        rewritten += 1
    return rewritten


def row(label: str, meter, ms: float) -> str:
    return (
        f"| {label} | {ms / 1000:,.2f} s | {meter.count:,} | {meter.read_units:,.0f} | "
        f"{meter.write_units:,.0f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    holders = round(args.users * PYTHON_SHARE)
    out = [f"# Renaming the most-held skill on DynamoDB Local, {args.users:,} learners\n"]
    with engine() as endpoint:
        from django.core.management import call_command

        from catalog.models import Skill
        from users.models import UserSkill

        print(f"DynamoDB Local on {endpoint}; writing 2 x {holders:,} holders", file=sys.stderr)
        seconds = write_holders(["python", "python-copy"], holders)
        out.append(
            f"Wrote {holders:,} holders of `python` and the same items under `python-copy` "
            f"in {seconds:.0f} s.\n"
        )
        out.append("| step | time | calls | RCU | WCU |")
        out.append("|---|---:|---:|---:|---:|")
        python = Skill.get("python")
        python.name = "Python 3"
        _, meter, ms = timed(python.save)
        out.append(row("`Skill.save()` of the rename (the admin's request)", meter, ms))
        (counted, _), meter, ms = timed(UserSkill.holders_count, "python", within=1.0)
        out.append(row(f"the admin's pending message: {counted:,}+ counted within 1 s", meter, ms))
        _, meter, ms = timed(UserSkill.holders_count, "python")
        out.append(row("exact COUNT of the holders (the delete confirmation page)", meter, ms))
        print(f"rewriting with {args.threads} threads", file=sys.stderr)
        _, worker, worker_ms = timed(
            call_command, "sync_user_skills", "--pending", threads=args.threads, stdout=StringIO()
        )
        out.append(row(f"`sync_user_skills --pending` ({args.threads} threads)", worker, worker_ms))
        _, again, again_ms = timed(
            call_command, "sync_user_skills", "python", threads=args.threads, stdout=StringIO()
        )
        out.append(row("the same again (nothing stale: idempotent)", again, again_ms))
        print("naive loop", file=sys.stderr)
        rewritten, naive, naive_ms = timed(naive_rename, "python-copy", "Python 3")
        out.append(row("naive GetItem + PutItem loop on the copy", naive, naive_ms))
        assert rewritten == holders
        stale = [h for h in UserSkill.gsi_skill_id.query("python") if h.skill_name != "Python 3"]
        assert not stale, f"{len(stale)} copies left stale"
        out.append(
            f"\nThe worker is **{naive_ms / worker_ms:.1f}x** faster than the naive loop "
            f"({holders:,} copies)."
        )
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
