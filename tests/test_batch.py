"""Batch writes resend unprocessed items with exponential backoff and jitter."""

from __future__ import annotations

import random

import pytest
from pynamodb.connection.base import Connection

from catalog.models import Skill
from dynamo import batch
from dynamo.meter import metered
from stats.models import UserStats
from users.models import User


@pytest.fixture
def throttled(monkeypatch):
    """Make DynamoDB store only `processed` writes of each batch and hand back the rest."""
    state = {"times": 2, "calls": 0, "processed": 2}
    real_dispatch = Connection.dispatch

    def dispatch(self, operation_name, operation_kwargs):
        if operation_name != "BatchWriteItem":
            return real_dispatch(self, operation_name, operation_kwargs)
        state["calls"] += 1
        ((table, requests),) = operation_kwargs["RequestItems"].items()
        if state["times"] <= 0:
            return real_dispatch(self, operation_name, operation_kwargs)
        state["times"] -= 1
        done = state["processed"]
        if done:
            real_dispatch(self, operation_name, {"RequestItems": {table: requests[:done]}})
        return {"UnprocessedItems": {table: requests[done:]}}

    monkeypatch.setattr(Connection, "dispatch", dispatch)
    sleeps = []
    monkeypatch.setattr(batch.time, "sleep", sleeps.append)
    return state, sleeps


def skills(count):
    return [Skill(f"skill-{i}", name=f"Skill {i}", category="Other") for i in range(count)]


def test_unprocessed_items_are_resent_until_every_item_is_stored(dynamo, throttled):
    state, sleeps = throttled

    assert batch.batch_put(Skill, skills(10)) == 10

    assert sorted(s.skill_id for s in Skill.scan()) == sorted(f"skill-{i}" for i in range(10))
    assert state["calls"] == 3
    assert len(sleeps) == 2


def test_a_batch_that_stays_unprocessed_fails_loudly(dynamo, throttled):
    state, _ = throttled
    state["times"], state["processed"] = 100, 0

    with pytest.raises(batch.UnprocessedItemsError, match="stayed unprocessed") as caught:
        batch.batch_put(Skill, skills(5))
    assert len(caught.value.unprocessed) == 5
    assert state["calls"] == batch.MAX_ATTEMPTS


def test_backoff_grows_exponentially_with_full_jitter_and_a_cap():
    rng = random.Random(7)
    ceilings = [batch.BASE_DELAY * 2 ** (n - 1) for n in range(1, 12)]

    delays = [batch.backoff_delay(n, rng) for n in range(1, 12)]

    assert all(0 <= d <= min(c, batch.MAX_DELAY) for d, c in zip(delays, ceilings, strict=True))
    assert max(batch.backoff_delay(30, random.Random(n)) for n in range(50)) <= batch.MAX_DELAY
    assert len(set(delays)) == len(delays)  # jittered, not a fixed schedule


def test_batches_are_split_into_25_writes(dynamo, throttled):
    state, _ = throttled
    state["times"] = 0

    batch.batch_put(Skill, skills(60))

    assert state["calls"] == 3
    assert sum(1 for _ in Skill.scan()) == 60


def test_a_batch_refuses_an_invalid_item_before_writing_anything(dynamo):
    items = [*skills(3), Skill("Bad Id", name="x", category="Nope")]

    with pytest.raises(Exception, match="skill_id"):
        batch.batch_put(Skill, items)
    assert list(Skill.scan()) == []


def test_get_together_reads_items_of_several_tables_in_one_call(dynamo):
    User("ada", name="Ada", email="ada@example.com").save()
    UserStats("ada", name="Ada").save()
    Skill("python", name="Python", category="Programming").save()

    with metered() as meter:
        wanted = [(User, ("ada",)), (UserStats, ("ada",)), (Skill, ("python",))]
        wanted += [(User, ("nobody",)), (User, ("ada",))]  # "ada" asked twice, sent once
        found = batch.get_together(wanted)

    assert [type(item).__name__ if item else None for item in found] == [
        "User",
        "UserStats",
        "Skill",
        None,
        "User",
    ]
    assert found[0].name == "Ada" and found[2].name == "Python"
    assert [call.operation for call in meter.calls] == ["BatchGetItem"]


def test_get_together_asks_again_for_unprocessed_keys(dynamo, monkeypatch):
    Skill("python", name="Python", category="Programming").save()
    Skill("go", name="Go", category="Programming").save()
    real_dispatch = Connection.dispatch
    held = {"times": 1}

    def dispatch(self, operation_name, operation_kwargs):
        if operation_name != "BatchGetItem" or not held["times"]:
            return real_dispatch(self, operation_name, operation_kwargs)
        held["times"] -= 1  # the first answer hands every key back unprocessed
        return {"Responses": {}, "UnprocessedKeys": operation_kwargs["RequestItems"]}

    monkeypatch.setattr(Connection, "dispatch", dispatch)
    sleeps = []
    found = batch.get_together([(Skill, ("python",)), (Skill, ("go",))], sleep=sleeps.append)

    assert [skill.name for skill in found] == ["Python", "Go"]
    assert len(sleeps) == 1
