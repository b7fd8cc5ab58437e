"""Serve the anchor's admin pages one request at a time, for a benchmark in another process.

Run from bench/: ../.venv/bin/python -m anchor.serve --users 1000 [--database sqlite]
`--database` is `sqlite` (a file in a temporary directory, the default), `postgresql` (a
throwaway cluster on loopback, servers.postgresql, started here and stopped at the end) or the
URL of an empty PostgreSQL database (bench/admin_pages.py starts the cluster and passes its
URL). The child migrates and fills the database (anchor.rows), logs a superuser in through
Django's test client and writes `ready SECONDS`; then, for each page name it reads on stdin (a
key of pages(), or "save"), it serves that page in process and writes one line:
`MILLISECONDS STATUS QUERIES`. "save" reads the learner's change page (untimed), then times
the POST a browser sends after renaming the learner. Anchor (below) is the parent's side.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
CHANGELIST = "/admin/learners/user/"


def pages(target: str) -> dict[str, str]:
    """Return the path of each measured page, as bench/admin_pages.py names them."""
    from django.contrib.admin.views.main import PAGE_VAR, SEARCH_VAR
    from django.utils import timezone

    today = timezone.now()
    return {
        "changelist": CHANGELIST,
        "cursor": f"{CHANGELIST}?{PAGE_VAR}=2",  # Django's second page: an offset
        "filtered": f"{CHANGELIST}?deleted=yes",
        "searched": f"{CHANGELIST}?{SEARCH_VAR}={target}",
        "searched by name": f"{CHANGELIST}?{SEARCH_VAR}=learner+42",
        "date hierarchy": (
            f"{CHANGELIST}?created_at__year={today.year}&created_at__month={today.month}"
        ),
        "change": f"{CHANGELIST}{target}/change/",
    }


class Server:
    """The anchor's pages served through Django's test client, each request's queries counted."""

    def __init__(self, target: str) -> None:
        from django.contrib.auth import get_user_model
        from django.test import Client

        admin = get_user_model().objects.create_superuser("bench", "bench@example.com", None)
        self.client = Client()
        self.client.force_login(admin)
        self.pages = pages(target)
        self.saves = 0
        self.queries = 0

    def count(self, execute, sql, params, many, context):
        self.queries += 1
        return execute(sql, params, many, context)

    def serve(self, page: str) -> tuple[float, int, int]:
        """Request one page; return (milliseconds, status, SQL queries)."""
        from browser import change_form_data
        from django.db import connection

        path, data = self.pages.get(page), None
        if page == "save":
            path = self.pages["change"]
            html = self.client.get(path).content.decode()
            data = change_form_data(html, name=f"Learner {self.saves}")
            self.saves += 1
        self.queries = 0
        with connection.execute_wrapper(self.count):
            started = time.perf_counter()
            response = self.client.get(path) if data is None else self.client.post(path, data)
            elapsed = (time.perf_counter() - started) * 1000
        if page == "save" and response.status_code != 302:
            errors = re.findall(r"errorlist[^<]*<li>[^<]*", response.content.decode())
            print(f"anchor: the save was refused: {errors}", file=sys.stderr)
        return elapsed, response.status_code, self.queries


@contextlib.contextmanager
def database(choice: str) -> Iterator[str]:
    """Yield the anchor's database (a SQLite file's path or a URL), thrown away after if made."""
    if "://" in choice:
        yield choice
    elif choice == "postgresql":
        from servers import postgresql

        with postgresql() as url:
            yield url
    else:
        with tempfile.TemporaryDirectory(prefix="anchor-") as tmp:
            yield str(Path(tmp) / "anchor.sqlite3")


def database_choice(value: str) -> str:
    if value in ("sqlite", "postgresql") or value.startswith(("postgres://", "postgresql://")):
        return value
    raise argparse.ArgumentTypeError("sqlite, postgresql or a postgres:// URL")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument(
        "--database",
        type=database_choice,
        default="sqlite",
        help="sqlite, postgresql (a throwaway cluster) or the URL of an empty PostgreSQL database",
    )
    args = parser.parse_args()
    protocol, sys.stdout = sys.stdout, sys.stderr  # nothing else may write on the protocol
    from common import TARGET  # first: it puts the repository on the path (dynamo, for servers)

    with database(args.database) as location:
        os.environ["ANCHOR_DATABASE"] = location
        os.environ["DJANGO_SETTINGS_MODULE"] = "anchor.settings"
        import django

        django.setup()
        from django.core.management import call_command

        from .rows import fill

        call_command("migrate", verbosity=0)
        seconds = fill(args.users)
        server = Server(TARGET)
        print(f"ready {seconds:.3f}", file=protocol, flush=True)
        while page := sys.stdin.readline().strip():
            if page != "save" and page not in server.pages:
                print(f"anchor: no page {page!r}", file=sys.stderr)
                return 2
            milliseconds, status, queries = server.serve(page)
            print(f"{milliseconds:.3f} {status} {queries}", file=protocol, flush=True)
        # Closed before the database goes (the SQLite file's directory, or the cluster).
        from django.db import connections

        connections.close_all()
    return 0


@dataclass
class Response:
    milliseconds: float
    status: int
    queries: int


class Anchor:
    """The parent's handle on `python -m anchor.serve`: start it, ask for pages, stop it."""

    def __init__(self, users: int, database: str = "sqlite") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "anchor.serve", "--users", str(users), "--database", database],
            cwd=BENCH_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.fill_seconds: float | None = None

    def __enter__(self) -> Anchor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _line(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            raise RuntimeError(f"The Django anchor stopped (exit {code}); see its stderr above.")
        return line

    def wait_until_ready(self) -> float:
        """Wait for the anchor's rows; return the seconds it took to write them."""
        if self.fill_seconds is None:
            word, seconds = self._line().split()
            if word != "ready":
                raise RuntimeError(f"The Django anchor said {word!r} instead of 'ready'.")
            self.fill_seconds = float(seconds)
        return self.fill_seconds

    def request(self, page: str) -> Response:
        """Have the anchor serve one page; return its time, status and SQL query count."""
        self.wait_until_ready()
        self.process.stdin.write(f"{page}\n")
        self.process.stdin.flush()
        milliseconds, status, queries = self._line().split()
        return Response(float(milliseconds), int(status), int(queries))

    def close(self) -> None:
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()  # end of input: the anchor removes its database and exits
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


if __name__ == "__main__":
    sys.exit(main())
