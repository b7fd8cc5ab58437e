"""Where a learner's admin change page and its save spend their time (cProfile, by layer).

Run: .venv/bin/python bench/profile_admin.py [--users 1000] [--rounds 30]
Same set-up as bench/admin_pages.py; each function's own time is charged to the layer its
file belongs to (engine round trips, PynamoDB deserialising, forms, templates, ...).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile

from admin_pages import prepare
from browser import change_form_data
from common import TARGET, engine

LAYERS = [  # first match wins; builtins are matched by name (their file is "~")
    ("engine: waiting on the socket", ("recv_into", "sendall", "'poll'", "'select'")),
    ("engine: HTTP to DynamoDB Local", ("botocore", "urllib3", "http/client", "socket", "ssl")),
    ("PynamoDB (de)serialising", ("pynamodb",)),
    ("templates", ("django/template", "django/templatetags", "templatetags")),
    ("forms", ("django/forms", "dynamo_admin/forms", "dynamo_admin/inlines")),
    ("admin (dynamo_admin)", ("dynamo_admin",)),
    ("project models and layer", ("/dynamo/", "/users/", "/stats/", "/catalog/")),
    ("Django (middleware, urls, auth, sessions)", ("django",)),
    ("Django's SQLite (session, user, permissions)", ("sqlite3",)),
]


def layer(filename: str) -> str:
    for name, needles in LAYERS:
        if any(n in filename for n in needles):
            return name
    return "other (Python, json, re, ...)"


def breakdown(profile: cProfile.Profile, rounds: int) -> dict[str, float]:
    stats = pstats.Stats(profile)
    totals: dict[str, float] = {}
    for (filename, _, function), (_, _, own, _, _) in stats.stats.items():
        key = layer(f"{filename} {function}")
        totals[key] = totals.get(key, 0.0) + own * 1000 / rounds
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"
        with engine():
            from django.contrib.auth import get_user_model
            from django.core.management import call_command
            from django.test import Client

            call_command("migrate", verbosity=0)
            prepare(args.users)
            admin = get_user_model().objects.create(
                username="bench", is_staff=True, is_superuser=True
            )
            web = Client()
            web.force_login(admin)
            change = f"/admin/users/user/{TARGET}/change/"
            web.get(change)  # warm templates and connections
            page, save = cProfile.Profile(), cProfile.Profile()
            for n in range(args.rounds):
                page.enable()
                response = web.get(change)
                page.disable()
                data = change_form_data(response.content.decode(), name=f"Learner {n}")
                save.enable()
                response = web.post(change, data)
                save.disable()
                assert response.status_code == 302, response.status_code
    out = [
        f"## Where the learner change page and its save spend their time ({args.users:,} "
        f"learners, {args.rounds} rounds, cProfile)\n",
        "| layer | change page ms | save ms |",
        "|---|---:|---:|",
    ]
    page_ms, save_ms = breakdown(page, args.rounds), breakdown(save, args.rounds)
    for name in sorted(page_ms.keys() | save_ms.keys(), key=lambda k: -page_ms.get(k, 0)):
        out.append(f"| {name} | {page_ms.get(name, 0):.1f} | {save_ms.get(name, 0):.1f} |")
    out.append(
        f"| **total (under cProfile)** | {sum(page_ms.values()):.1f} | "
        f"{sum(save_ms.values()):.1f} |"
    )
    out.append(
        "\nOwn time of every function, charged to the layer of its file; cProfile slows "
        "Python code down more than waiting, so the engine's share is an underestimate."
    )
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
