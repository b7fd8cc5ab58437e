"""Each hand-written cache of the admin on and off, interleaved in one process.

The blank-widget renderer (FORM_RENDERER = dynamo_admin.renderers.DjangoTemplates) and the
sidebar's rendered app list: the learner's change page and the learners' listing on
DynamoDB Local, each configuration in turn every round (the first `--warmup` rounds
unrecorded). A cache stays only where its page is at least 20 % faster with it.

Run: .venv/bin/python bench/caches.py [--users 1000] [--rounds 40] [--warmup 10]
"""

from __future__ import annotations

import argparse
import statistics
import time

from admin_pages import prepare
from common import TARGET, engine

CONFIGURATIONS = ("both caches", "no widget cache", "no sidebar cache", "neither")


class NeverKept(dict):
    """A store that keeps nothing: every page renders its sidebar afresh."""

    def __setitem__(self, key, value) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    with engine():
        from django.conf import settings
        from django.contrib.auth.models import User as StaffUser
        from django.core.management import call_command
        from django.test import Client

        from dynamo_admin.templatetags import dynamo_admin_sidebar

        call_command("migrate", verbosity=0)
        prepare(args.users)
        staff = StaffUser.objects.create_superuser("bench", "bench@example.com", "pw")
        client = Client()
        client.force_login(staff)
        pages = {
            "change page": f"/admin/users/user/{TARGET}/change/",
            "listing": "/admin/users/user/",
        }
        kept_sidebar = dynamo_admin_sidebar._kept
        times: dict[tuple[str, str], list[float]] = {}
        for number in range(args.warmup + args.rounds):
            for configuration in CONFIGURATIONS:
                settings.FORM_RENDERER = (
                    "django.forms.renderers.DjangoTemplates"
                    if configuration in ("no widget cache", "neither")
                    else "dynamo_admin.renderers.DjangoTemplates"
                )
                no_sidebar = configuration in ("no sidebar cache", "neither")
                dynamo_admin_sidebar._kept = NeverKept() if no_sidebar else kept_sidebar
                for page, url in pages.items():
                    started = time.perf_counter()
                    response = client.get(url)
                    elapsed = (time.perf_counter() - started) * 1000
                    assert response.status_code == 200, (url, response.status_code)
                    if number >= args.warmup:
                        times.setdefault((configuration, page), []).append(elapsed)
    print(report(args, times))


def report(args, times) -> str:
    lines = [
        f"Command: `.venv/bin/python bench/caches.py --users {args.users} --rounds "
        f"{args.rounds} --warmup {args.warmup}` (DynamoDB Local in memory, Django's test "
        "client, DEBUG off, each configuration in turn every round).",
        "",
        "| configuration | change page p50 ms | listing p50 ms | change page vs both | "
        "listing vs both |",
        "|---|---:|---:|---:|---:|",
    ]
    base = {
        page: statistics.median(times[("both caches", page)]) for page in ("change page", "listing")
    }
    for configuration in CONFIGURATIONS:
        change = statistics.median(times[(configuration, "change page")])
        listing = statistics.median(times[(configuration, "listing")])
        lines.append(
            f"| {configuration} | {change:.1f} | {listing:.1f} | "
            f"{change / base['change page']:.2f}x | {listing / base['listing']:.2f}x |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
