"""How many examples a generated test tries: all of them, or a share on a repeat run.

`bin/test-package` runs these tests once for each Django the package supports, side by side.
The first run tries every example; the others (`DYNAMO_ADMIN_TEST_EXAMPLES=0.25`) prove the
same code on another Django with a quarter of them, rather than search the same inputs again.
"""

from __future__ import annotations

import os

SHARE = float(os.environ.get("DYNAMO_ADMIN_TEST_EXAMPLES") or 1)


def examples(count: int) -> int:
    """Return this run's share of `count` examples, at least one."""
    return max(1, round(count * SHARE))
