"""The django-dynamo-admin wheel: the package alone, with nothing of Skillboard in it.

Built from the working tree by bin/build-package, then read file by file: names,
code, templates, translations and the metadata (whose long description is the README).
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> dict[str, bytes]:
    """Every file of a freshly built wheel, by its path inside the wheel."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        ["bin/build-package", str(out)],
        cwd=BASE_DIR,
        env={"PATH": "/usr/bin:/bin", "PY": sys.executable},
        check=True,
        capture_output=True,
        timeout=300,
    )
    (path,) = out.glob("*.whl")
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_wheel_names_no_skillboard_anywhere(wheel):
    naming = [
        name
        for name, content in wheel.items()
        if re.search(rb"skillboard", name.encode() + b"\n" + content, re.IGNORECASE)
    ]

    assert naming == []
    assert any(name.endswith("/METADATA") for name in wheel)  # the README was read too


def test_the_wheel_holds_no_jobs_table_and_no_scheduler(wheel):
    assert "dynamo/jobs.py" not in wheel
    assert not any(name.endswith("commands/run_schedule.py") for name in wheel)
    declaring = [
        name
        for name, content in wheel.items()
        if name.endswith(".py") and re.search(rb"""table_suffix = ["']jobs["']""", content)
    ]
    assert declaring == []


def test_the_wheel_holds_no_seed_and_its_launcher_runs_none(wheel):
    commands = {
        Path(name).stem for name in wheel if re.search(r"/management/commands/\w+\.py$", name)
    }

    assert "seed" not in commands and "run_schedule" not in commands
    assert "create_tables" in commands  # the listing does find the commands
    launcher = wheel["dynamo/local.py"].decode()
    assert not re.search(r"""["'](seed|bootstrap_staff|run_schedule)["']""", launcher)
