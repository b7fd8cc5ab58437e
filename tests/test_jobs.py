"""The jobs table keeps the workers' bookkeeping; user-stats holds learners only."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from dynamo.batch import batch_put
from dynamo.models import client_for
from stats.models import UserStats, leaderboard_partition_for
from stats.reminders import sending
from users.models import User
from workers import jobs


def user_stats_keys() -> list[str]:
    return sorted(s.username for s in UserStats.scan())


def put_legacy(item: dict) -> None:
    client_for(UserStats).put_item(TableName=UserStats.Meta.table_name, Item=item)


def test_a_reminder_run_keeps_its_watermark_in_the_jobs_table(dynamo):
    User("alice", name="Alice", email="alice@example.com").save()
    UserStats("alice", xp=1).save()

    call_command("send_reminders", now="2026-03-01T10:30:00Z", stdout=StringIO())

    assert jobs.Job.get("send_reminders").watermark == "2026-03-01-10"
    assert user_stats_keys() == ["alice"]


def test_a_watermark_an_earlier_release_left_in_user_stats_is_moved_then_deleted(dynamo):
    put_legacy({"username": {"S": "#send_reminders"}, "watermark": {"S": "2026-02-27-08"}})

    assert sending.read_watermark() == "2026-02-27-08"

    assert jobs.read_watermark("send_reminders") == "2026-02-27-08"
    assert user_stats_keys() == []


def test_a_run_after_the_move_reads_on_from_the_old_watermark(dynamo):
    put_legacy({"username": {"S": "#send_reminders"}, "watermark": {"S": "2026-03-01-07"}})

    output = StringIO()
    call_command("send_reminders", now="2026-03-01T10:00:00Z", stdout=output)

    assert "watermark: 2026-03-01-07 -> 2026-03-01-10" in output.getvalue()
    assert user_stats_keys() == []


def test_a_reshard_checkpoint_left_in_user_stats_is_resumed_then_deleted(dynamo, settings):
    settings.LEADERBOARD_SHARDS = 1
    batch_put(User, [User(f"user{n:02d}", name="U", email=f"u{n}@example.com") for n in range(6)])
    batch_put(UserStats, [UserStats(f"user{n:02d}", xp=n) for n in range(6)])
    # Stopped after user02 (scan order): the rest still wait for their shard.
    order = [s.username for s in UserStats.scan()]
    position = {"username": {"S": order[2]}}
    put_legacy(
        {
            "username": {"S": "#reshard_leaderboard"},
            "shards": {"N": "3"},
            "position": {"S": json.dumps(position)},
        }
    )

    output = StringIO()
    call_command("reshard_leaderboard", shards=3, stdout=output)

    assert "Resuming from the saved checkpoint." in output.getvalue()
    assert "scanned 3 items" in output.getvalue()
    moved = {s.username for s in UserStats.scan() if s.leaderboard_partition != "ALL"}
    assert moved == {n for n in order[3:] if leaderboard_partition_for(n, 3) != "ALL"}
    assert user_stats_keys() == sorted(order)
    assert jobs.read_state("reshard_leaderboard") is None


def test_a_restarted_reshard_deletes_the_checkpoint_left_in_user_stats_too(dynamo):
    batch_put(User, [User(f"user{n:02d}", name="U", email=f"u{n}@example.com") for n in range(3)])
    batch_put(UserStats, [UserStats(f"user{n:02d}", xp=n) for n in range(3)])
    position = {"username": {"S": "user01"}}
    put_legacy(
        {
            "username": {"S": "#reshard_leaderboard"},
            "shards": {"N": "2"},
            "position": {"S": json.dumps(position)},
        }
    )

    output = StringIO()
    call_command("reshard_leaderboard", shards=2, restart=True, stdout=output)

    assert "Resuming" not in output.getvalue()
    assert "scanned 3 items" in output.getvalue()
    assert user_stats_keys() == ["user00", "user01", "user02"]
    assert jobs.read_state("reshard_leaderboard") is None


def test_an_interrupted_reshard_keeps_its_checkpoint_in_the_jobs_table(dynamo, monkeypatch):
    from stats.management.commands import reshard_leaderboard

    monkeypatch.setattr(reshard_leaderboard, "PAGE_SIZE", 2)
    batch_put(User, [User(f"user{n:02d}", name="U", email=f"u{n}@example.com") for n in range(5)])
    batch_put(UserStats, [UserStats(f"user{n:02d}", xp=n) for n in range(5)])

    call_command("reshard_leaderboard", shards=2, max_pages=1, stdout=StringIO())

    saved = jobs.read_state("reshard_leaderboard")
    assert saved["shards"] == 2 and "username" in saved["position"]
    assert len(user_stats_keys()) == 5


def test_a_run_storing_after_another_read_the_same_watermark_keeps_the_earlier(dynamo):
    jobs.store_watermark("expire_streaks", None, "2026-03-01")
    jobs.store_watermark("expire_streaks", "2026-03-01", "2026-03-05")

    kept = jobs.store_watermark("expire_streaks", "2026-03-01", "2026-03-03")

    assert kept == "2026-03-03"
    assert jobs.read_watermark("expire_streaks") == "2026-03-03"


@pytest.mark.parametrize("key", ["#send_reminders", "#anything", "a#b"])
def test_a_reserved_key_is_refused_in_user_stats(dynamo, key):
    with pytest.raises(ValidationError) as refused:
        UserStats(key, xp=1).save()

    assert "username" in refused.value.message_dict
    assert user_stats_keys() == []


def next_letter(position: str) -> str:
    return chr(ord(position) + 1)


def test_a_watermark_walk_starts_at_start_then_at_its_stored_watermark(dynamo):
    first = jobs.WatermarkWalk("walk", start="b", last="d", following=next_letter)
    walked = list(first.positions())
    stored = first.finish()

    second = jobs.WatermarkWalk("walk", start="a", last="f", following=next_letter)

    assert (walked, stored) == (["b", "c", "d"], "d")
    assert list(second.positions()) == ["d", "e", "f"]  # the last position is read again
    assert second.finish("e") == "e"  # where the run left something behind
    assert jobs.read_watermark("walk") == "e"


def test_a_walk_killed_before_it_finished_is_walked_again_from_the_same_watermark(dynamo):
    jobs.store_watermark("walk", None, "c")
    killed = jobs.WatermarkWalk("walk", start="a", last="e", following=next_letter)
    next(killed.positions())  # killed here: finish() never ran

    again = jobs.WatermarkWalk("walk", start="a", last="e", following=next_letter)

    assert list(again.positions()) == ["c", "d", "e"]


def test_a_walk_with_its_watermark_ahead_of_last_reads_and_stores_nothing(dynamo):
    jobs.store_watermark("walk", None, "f")
    walk = jobs.WatermarkWalk("walk", start="a", last="d", following=next_letter)

    assert list(walk.positions()) == []
    assert walk.finish() == ""
    assert jobs.read_watermark("walk") == "f"
