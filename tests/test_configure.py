"""One call points every model at another endpoint or table prefix."""

from __future__ import annotations

import pytest
from pynamodb.exceptions import GetError

from catalog.models import Skill
from dynamo import tables
from dynamo.models import configure
from users.models import User


def test_configure_moves_every_model_to_another_prefix_and_back(dynamo):
    Skill("python", name="Python", category="Programming").save()
    endpoint, home = Skill.Meta.host, Skill.Meta.table_name.removesuffix("skills")

    configure(endpoint=endpoint, prefix="elsewhere-", region="us-east-1")
    try:
        assert {m.Meta.table_name for m in tables.all_models()} == {
            "elsewhere-admin-log",
            "elsewhere-jobs",
            "elsewhere-skills",
            "elsewhere-users",
            "elsewhere-user-skills",
            "elsewhere-user-stats",
            "elsewhere-study-sessions",
            "elsewhere-study-days",
            "elsewhere-session-keys",
            "elsewhere-rank-tiers",
            "elsewhere-learner-words",
        }
        with pytest.raises(GetError, match=r"ResourceNotFound|not found|non-existent"):
            User.get("alice")
    finally:
        configure(endpoint=endpoint, prefix=home, region="us-east-1")

    assert Skill.get("python").name == "Python"
