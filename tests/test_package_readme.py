"""The package README's worked examples are what the example project runs, word for word."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_single_table_worked_example_is_the_shop_s_admin():
    readme = (ROOT / "packaging" / "README.md").read_text()
    section = readme.split("## Single-table design", 1)[1].split("\n## ", 1)[0]
    [shown] = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)

    assert shown == (ROOT / "examples" / "library" / "shop" / "admin.py").read_text()
