"""`make bench` replaces each benchmark's section of RESULTS.md and keeps what was written
by hand."""

from __future__ import annotations

import sys

import pytest

from tests.test_bench_anchor import load_bench_module

run = load_bench_module("run")

REPORT = """# Benchmarks on DynamoDB Local

- Date: 2026-11-30 17:55 UTC
- Command: `make bench` (BENCH_USERS=100000); each section names its own command.


## Reading the numbers

Notes written by hand.

# Leaderboard pages

`.venv/bin/python bench/leaderboard.py` (9 s)

## Old figures

# The admin's caches on and off (2026-12-04)

Measured by hand, kept.
"""


@pytest.fixture
def bench(tmp_path, monkeypatch):
    (tmp_path / "RESULTS.md").write_text(REPORT)
    (tmp_path / "board.py").write_text("print('# Board\\nnew figures')\n")
    (tmp_path / "load.py").write_text("print('# Load\\nload figures')\n")
    monkeypatch.setattr(run, "BENCH_DIR", tmp_path)
    monkeypatch.setattr(run, "machine", lambda: ["- Date: today"])
    monkeypatch.setattr(
        run, "plan", lambda users: [("Leaderboard pages", ["board.py"]), ("Load", ["load.py"])]
    )
    monkeypatch.setattr(sys, "argv", ["run.py"])
    return tmp_path / "RESULTS.md"


def test_a_run_replaces_its_sections_in_place_and_keeps_the_rest(bench):
    assert run.main() == 0
    text = bench.read_text()
    assert "- Date: today" in text and "2026-11-30" not in text
    assert "Notes written by hand." in text and "Measured by hand, kept." in text
    assert "Old figures" not in text
    assert text.index("new figures") < text.index("Measured by hand")  # where it stood
    assert text.index("load figures") > text.index("Measured by hand")  # a new one: at the end
    assert text.count("# Leaderboard pages") == 1


def test_a_resumed_run_keeps_the_finished_sections(bench, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["run.py", "--resume"])
    assert run.main() == 0
    text = bench.read_text()
    assert "Old figures" in text and "new figures" not in text
    assert "load figures" in text and "Resumed at" in text
