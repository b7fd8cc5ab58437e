"""Where a learner's admin change page and its save spend their time, part by part.

Run: .venv/bin/python bench/profile_admin.py [--users 1000] [--rounds 40] [--warmup 300]
                                              [--side skillboard|postgresql|sqlite] [--cprofile]
`--side skillboard` (the default): the set-up of bench/admin_pages.py, DynamoDB Local in
memory, the learner with three skills. `--side postgresql` or `sqlite`: the anchor of
bench/admin_pages.py (bench/anchor, Django's admin with the same options and inlines over the
same rows) on a throwaway PostgreSQL cluster or a SQLite file. Each round requests the change
page (GET), then posts it back with the learner renamed (the save), in process through
Django's test client as a superuser; the first `--warmup` rounds are not recorded (DynamoDB
Local's calls take up to three times as long until the JVM has run them a few hundred times).
A few functions are timed by the wall clock, each one's own time (what it spends inside
another timed function is that one's): each DynamoDB call's HTTP exchange and the rest of
PynamoDB's dispatch (botocore building, signing and parsing), each SQL statement, the reads
around them, parsing the posted form, the forms, the page's context, the templates, the save's
own work and its redirect; the rest is middleware, sessions, URL resolving and the test
client. Prints p50 and p95 of each part. `--cprofile` (Skillboard only) adds each function's
own time under cProfile, charged to the layer of its file (it slows Python more than waiting:
it says what runs, not how long it takes without it).
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable

from admin_pages import prepare
from browser import change_form_data
from common import TARGET, engine

# Each DynamoDB call by its operation: its HTTP exchange with DynamoDB Local (botocore's
# Endpoint._send), and the rest of PynamoDB's dispatch (building the request, signing it,
# parsing the answer, the meter's handlers).
CALL = "DynamoDB {}: PynamoDB and botocore"
HTTP = "DynamoDB {}: the HTTP exchange"
SQL = "SQL statements"
READS = "reading: the ORM or PynamoDB and the admin around the calls"
POSTED = "parsing the posted form (multipart)"
FORMS = "forms: form classes, forms and inline formsets (and is_valid)"
PAGE = "context: the form's (AdminForm, inline helpers, media)"
SITE = "context: each_context (the sidebar's list of apps and models)"
VIEW = "the view's own code (permissions, fields, the steps between the hooks)"
TEMPLATES = "templates: TemplateResponse.render (widgets included)"
SAVE = "save: save_forms, or save_model/save_related/log_change, less their calls"
RESPONSE = "response_change: the message and the redirect"
REST = "the rest: middleware, session and user, URLs, the test client"
ORDER = (SQL, READS, POSTED, FORMS, PAGE, SITE, TEMPLATES, SAVE, RESPONSE, VIEW)

Parts = dict[str, dict[str, list[float]]]


class PartTimer:
    """Time chosen functions by the wall clock, each one's own time (children subtracted)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.calls = 0  # timed database calls of the current request
        self._children: list[float] = []
        self._originals: list[tuple[object, str, object]] = []

    def reset(self) -> None:
        self.spent.clear()
        self.calls = 0

    def wrap(self, owner, name: str, label: str | Callable[[tuple], str], call=False) -> None:
        """Replace owner.name by a timed version; label is a string or f(args) -> string."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            self._children.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                children = self._children.pop()
                key = label(args) if callable(label) else label
                self.spent[key] += elapsed - children
                self.calls += call
                if self._children:
                    self._children[-1] += elapsed

        self._originals.append((owner, name, original))
        setattr(owner, name, timed)

    def unwrap(self) -> None:
        """Put every timed function back as it was."""
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()


def time_skillboard(timer: PartTimer) -> None:
    from botocore.endpoint import Endpoint
    from django.contrib.admin.sites import AdminSite
    from django.db.backends.utils import CursorWrapper
    from django.http import HttpRequest
    from django.template.response import SimpleTemplateResponse
    from pynamodb.connection.base import Connection

    from dynamo_admin.forms import ItemForm
    from dynamo_admin.inlines import InlineFormSet
    from dynamo_admin.options import DynamoModelAdmin
    from dynamo_admin.views.change import ChangeFormViews

    timer.wrap(Connection, "dispatch", lambda args: CALL.format(args[1]), call=True)
    timer.wrap(Endpoint, "_send", lambda args: HTTP.format(operation(args[1])))
    timer.wrap(CursorWrapper, "execute", SQL)  # the session and the user, in SQLite here
    timer.wrap(ChangeFormViews, "read_item_and_rows", READS)
    timer.wrap(HttpRequest, "_load_post_and_files", POSTED)
    for owner, name in (
        (DynamoModelAdmin, "get_form"),
        (ItemForm, "__init__"),
        (ItemForm, "is_valid"),
        (ChangeFormViews, "_create_formsets"),
        (InlineFormSet, "is_valid"),
    ):
        timer.wrap(owner, name, FORMS)
    timer.wrap(ChangeFormViews, "change_form_context", PAGE)
    timer.wrap(AdminSite, "each_context", SITE)
    timer.wrap(ChangeFormViews, "_changeform_view", VIEW)
    timer.wrap(SimpleTemplateResponse, "render", TEMPLATES)
    timer.wrap(ChangeFormViews, "save_forms", SAVE)
    timer.wrap(DynamoModelAdmin, "response_change", RESPONSE)


def operation(request) -> str:
    """Return the DynamoDB operation an HTTP request asks for (its X-Amz-Target's end)."""
    target = request.headers.get("X-Amz-Target", b"")
    return (target.decode() if isinstance(target, bytes) else target).rpartition(".")[2]


def time_anchor(timer: PartTimer) -> None:
    from django.contrib.admin.options import ModelAdmin
    from django.contrib.admin.sites import AdminSite
    from django.db.backends.utils import CursorWrapper
    from django.forms import BaseForm, BaseFormSet
    from django.http import HttpRequest
    from django.template.response import SimpleTemplateResponse

    timer.wrap(CursorWrapper, "execute", SQL, call=True)
    timer.wrap(ModelAdmin, "get_object", READS)
    timer.wrap(HttpRequest, "_load_post_and_files", POSTED)
    for owner, name in (
        (ModelAdmin, "get_form"),
        (BaseForm, "__init__"),
        (BaseForm, "is_valid"),
        (ModelAdmin, "_create_formsets"),
        (BaseFormSet, "is_valid"),
    ):
        timer.wrap(owner, name, FORMS)
    timer.wrap(ModelAdmin, "get_inline_formsets", PAGE)  # AdminForm and media: in VIEW
    timer.wrap(AdminSite, "each_context", SITE)
    timer.wrap(ModelAdmin, "_changeform_view", VIEW)
    timer.wrap(SimpleTemplateResponse, "render", TEMPLATES)
    for name in ("save_model", "save_related", "log_change", "construct_change_message"):
        timer.wrap(ModelAdmin, name, SAVE)
    timer.wrap(ModelAdmin, "response_change", RESPONSE)


def measure(web, change: str, timer: PartTimer, args) -> tuple[Parts, dict[str, str]]:
    """Request the change page and post it back, round by round; return the parts' times."""
    parts: Parts = {"GET": defaultdict(list), "POST": defaultdict(list)}
    calls: dict[str, str] = {}
    for n in range(args.warmup + args.rounds):
        html = ""
        for method in ("GET", "POST"):
            data = change_form_data(html, name=f"Learner {n}") if html else None
            timer.reset()
            started = time.perf_counter()
            response = web.get(change) if data is None else web.post(change, data)
            elapsed = (time.perf_counter() - started) * 1000
            assert response.status_code == (200 if data is None else 302), response.status_code
            html = response.content.decode()
            if "X-DynamoDB-Calls" in response:
                calls[method] = (
                    f"{response['X-DynamoDB-Calls']} DynamoDB calls "
                    f"({response['X-DynamoDB-Capacity']})"
                )
            else:
                calls[method] = f"{timer.calls} SQL statements"
            if n < args.warmup:
                continue
            spent = {key: seconds * 1000 for key, seconds in timer.spent.items()}
            for key, ms in spent.items():
                parts[method][key].append(ms)
            parts[method][REST].append(elapsed - sum(spent.values()))
            parts[method]["total"].append(elapsed)
    return parts, calls


def on_skillboard(args) -> tuple[Parts, dict[str, str], list[str]]:
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
            timer = PartTimer()
            time_skillboard(timer)
            parts, calls = measure(web, change, timer, args)
            timer.unwrap()
            profiles = (cProfile.Profile(), cProfile.Profile()) if args.cprofile else None
            if profiles:  # after the measured rounds: everything warm, nothing wrapped
                profile(web, change, profiles, args.rounds)
    return parts, calls, layer_table(*profiles, args.rounds) if profiles else []


def on_anchor(args) -> tuple[Parts, dict[str, str], list[str]]:
    from anchor.serve import CHANGELIST, Server, database

    with database(args.side) as location:
        os.environ["ANCHOR_DATABASE"] = location
        os.environ["DJANGO_SETTINGS_MODULE"] = "anchor.settings"
        import django

        django.setup()
        from anchor.rows import fill
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        fill(args.users)
        server = Server(TARGET)
        timer = PartTimer()
        time_anchor(timer)
        parts, calls = measure(server.client, f"{CHANGELIST}{TARGET}/change/", timer, args)
        connections.close_all()  # before the database goes
    return parts, calls, []


def profile(web, change: str, profiles: tuple[cProfile.Profile, ...], rounds: int) -> None:
    page, save = profiles
    for n in range(rounds):
        page.enable()
        response = web.get(change)
        page.disable()
        data = change_form_data(response.content.decode(), name=f"Profiled {n}")
        save.enable()
        response = web.post(change, data)
        save.disable()
        assert response.status_code == 302, response.status_code


def layer_table(page: cProfile.Profile, save: cProfile.Profile, rounds: int) -> list[str]:
    """Return the cProfile table: each function's own time, charged to its file's layer."""
    layers = [  # first match wins; builtins are matched by name (their file is "~")
        ("engine: waiting on the socket", ("recv_into", "sendall", "'poll'", "'select'")),
        ("engine: HTTP to DynamoDB Local", ("botocore", "urllib3", "http/client", "socket")),
        ("PynamoDB (de)serialising", ("pynamodb",)),
        ("templates", ("django/template", "django/templatetags", "templatetags")),
        ("forms", ("django/forms", "dynamo_admin/forms", "dynamo_admin/inlines")),
        ("admin (dynamo_admin)", ("dynamo_admin",)),
        ("project models and layer", ("/dynamo/", "/users/", "/stats/", "/catalog/")),
        ("Django (middleware, urls, auth, sessions)", ("django",)),
        ("Django's SQLite (session, user, permissions)", ("sqlite3",)),
    ]

    def breakdown(profile: cProfile.Profile) -> dict[str, float]:
        totals: dict[str, float] = defaultdict(float)
        for (filename, _, function), (_, _, own, _, _) in pstats.Stats(profile).stats.items():
            where = f"{filename} {function}"
            name = next(
                (name for name, needles in layers if any(n in where for n in needles)),
                "other (Python, json, re, ...)",
            )
            totals[name] += own * 1000 / rounds
        return totals

    page_ms, save_ms = breakdown(page), breakdown(save)
    out = [
        f"\n#### The same under cProfile ({rounds} rounds): own time by layer\n",
        "| layer | change page ms | save ms |",
        "|---|---:|---:|",
    ]
    for name in sorted(page_ms.keys() | save_ms.keys(), key=lambda k: -page_ms.get(k, 0)):
        out.append(f"| {name} | {page_ms.get(name, 0):.1f} | {save_ms.get(name, 0):.1f} |")
    out.append(f"| **total** | {sum(page_ms.values()):.1f} | {sum(save_ms.values()):.1f} |")
    return out


def spread(samples: list[float]) -> str:
    """Write the p50 and p95 of the samples as two table cells."""
    p50, p95 = statistics.median(samples), statistics.quantiles(samples, n=20)[18]
    return f"{p50:.2f} | {p95:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=300, help="rounds first, not recorded")
    parser.add_argument("--side", choices=("skillboard", "postgresql", "sqlite"))
    parser.add_argument("--cprofile", action="store_true", help="add cProfile's layer table")
    args = parser.parse_args()
    args.side = args.side or "skillboard"
    if args.cprofile and args.side != "skillboard":
        parser.error("--cprofile profiles Skillboard's side only")
    side = on_skillboard if args.side == "skillboard" else on_anchor
    parts, calls, profiled = side(args)
    dynamo = args.side == "skillboard"
    name = "Skillboard" if dynamo else f"Django's admin on {args.side}"
    sessions = (
        "; the session and the staff user are two SQL queries in SQLite besides"
        if dynamo
        else ", the session's and the staff user's among them"
    )
    out = [
        f"### {name}: the learner change page and its save, part by part ({args.users:,} "
        f"learners, {args.rounds} rounds after {args.warmup})\n",
        f"The change page makes {calls['GET']}, the save {calls['POST']}{sessions}.\n",
        "| part | change page p50 ms | p95 ms | save p50 ms | p95 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    order = sorted(
        {key for m in ("GET", "POST") for key in parts[m] if key.startswith("DynamoDB")},
        key=lambda key: (key.split(":")[0], "HTTP" not in key),
    )
    order += [*ORDER, REST, "total"]
    for key in order:
        cells = [spread(parts[m][key]) if key in parts[m] else "- | -" for m in ("GET", "POST")]
        if cells != ["- | -"] * 2:
            out.append(f"| {key} | {cells[0]} | {cells[1]} |")
    out.append(
        "\nEach part is its own time by the wall clock (time inside another timed part is that "
        "part's); the parts' p50s need not add up to the total's."
    )
    print("\n".join(out + profiled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
