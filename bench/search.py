"""Talent search on DynamoDB Local: "Advanced or better Python, 3+ years" against a naive Query.

Writes the holders of Python (34.54 % of the learners, with the seed's mix of levels and
years: 34,540 at 100,000), then requests `/skills/search/?skill=Python&min_level=Advanced&
min_years=3` page by page (one Query per level on a page, Expert first) and compares it
with the naive way: Query the whole skill and filter and sort in memory.

Run: .venv/bin/python bench/search.py [--users 100000]
Prints a Markdown report (bench/results/search.md holds the last one).
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from common import engine, timed, write_holdings

# A loaded machine makes DynamoDB Local slow: wait for each call rather than resend it.
os.environ.setdefault("DYNAMODB_READ_TIMEOUT", "120")
os.environ.setdefault("DYNAMODB_MAX_ATTEMPTS", "5")

PYTHON_SHARE = 0.3454  # holders of Python per learner in the seeded demo data
URL = "/skills/search/?skill=Python&min_level=Advanced&min_years=3"  # what is measured


def write_holders(holders: int, seed: int = 42) -> float:
    """Write Python's holders with the seed's proficiency weights and years ranges."""
    from catalog.models import Skill
    from users.demo import PROFICIENCY_WEIGHTS, YEARS_BY_PROFICIENCY
    from users.models import PROFICIENCIES

    rng = random.Random(seed)
    python = Skill("python", name="Python", category="Programming")
    python.save()

    def levels():
        for _ in range(holders):
            proficiency = rng.choices(PROFICIENCIES, weights=PROFICIENCY_WEIGHTS)[0]
            yield proficiency, rng.randint(*YEARS_BY_PROFICIENCY[proficiency])

    return write_holdings(python, levels())


def naive_search(limit: int = 25):
    """The naive way: read every holder of the skill, filter and sort in memory."""
    from users.models import LEVELS, UserSkill

    found = [
        h
        for h in UserSkill.gsi_skill_level.query("Python")
        if h.level >= LEVELS["Advanced"] and h.years >= 3
    ]
    found.sort(key=lambda h: (h.level, h.years), reverse=True)
    return found[:limit], len(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=3)
    args = parser.parse_args()
    holders = round(args.users * PYTHON_SHARE)
    out = [f"# Talent search on DynamoDB Local, {args.users:,} learners\n"]
    with engine() as endpoint:
        from users.search import TalentSearch, search

        print(f"DynamoDB Local on {endpoint}; writing {holders:,} holders", file=sys.stderr)
        seconds = write_holders(holders)
        out.append(f"Wrote {holders:,} holders of Python in {seconds:.0f} s.\n")
        out.append(
            f"`{URL}` (25 a page), measured on `users.search.search`, the code the page and "
            "the API run\n"
        )
        out.append("| request | DynamoDB calls | read capacity (RCU) | ms |")
        out.append("|---|---:|---:|---:|")
        criteria = TalentSearch("Python", min_level="Advanced", min_years=3)
        cursor, seen = None, []
        for number in range(1, args.pages + 1):
            page, meter, ms = timed(search, criteria, limit=25, cursor=cursor)
            seen += page.holders
            out.append(f"| page {number} | {meter.count} | {meter.read_units:g} | {ms:.0f} |")
            cursor = page.cursor
            if not cursor:
                break
        (first, matching), meter, ms = timed(naive_search)
        out.append(
            f"| naive: Query all {holders:,} holders, filter and sort in memory | "
            f"{meter.count} | {meter.read_units:g} | {ms:.0f} |"
        )
        pairs = [(h.level, h.years) for h in seen]
        assert pairs == sorted(pairs, reverse=True), "the pages are not best first"
        assert pairs[:25] == [(h.level, h.years) for h in first], "page 1 differs from naive"
        out.append(f"\n{matching:,} holders match; the pages list them Expert first, then years.")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
