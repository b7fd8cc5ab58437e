"""send_reminders: each due reminder once, across crashes, concurrent runs and missed hours."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core import mail
from django.core.management import CommandError, call_command

from dynamo.batch import batch_put
from stats.models import UserStats, reminder_bucket
from stats.reminders import sending
from tests import moto_atomic
from tests.helpers import run_together
from users.models import User

atomic_writes = moto_atomic.atomic_writes  # moto applies each write atomically

NOON = datetime(2025, 6, 2, 12, 0, tzinfo=UTC)


def learner(username: str, at: datetime | None, *, hour: int | None = None) -> UserStats:
    stats = UserStats(username, xp=10, streak=2, reminder_hour=hour)
    stats.schedule_reminder(at)
    return stats


@pytest.fixture
def learners(dynamo):
    """Ten learners due in the last three hours, two due later today, one without reminders."""
    names = [f"learner{n:02d}" for n in range(13)]
    batch_put(User, [User(n, name=n.title(), email=f"{n}@example.com") for n in names])
    stats = [
        learner(n, NOON - timedelta(hours=2, minutes=50) + timedelta(minutes=17 * i), hour=9)
        for i, n in enumerate(names[:10])
    ]
    stats += [
        learner(names[10], NOON + timedelta(hours=3)),
        learner(names[11], NOON.replace(hour=18)),
    ]
    stats.append(learner(names[12], None))
    batch_put(UserStats, stats)
    call_command("send_reminders", now=(NOON - timedelta(hours=3)).isoformat(), stdout=StringIO())
    return names


def run(now: datetime, **options) -> str:
    out = StringIO()
    call_command("send_reminders", now=now.isoformat(), stdout=out, **options)
    return out.getvalue()


def sent_to() -> Counter:
    return Counter(address for message in mail.outbox for address in message.to)


def test_it_sends_what_is_due_and_schedules_the_next_day(learners):
    output = run(NOON)

    assert sent_to() == Counter({f"{n}@example.com": 1 for n in learners[:10]})
    first = UserStats.get(learners[0])
    assert first.last_reminded_at is not None
    assert first.next_reminder_at == datetime(2025, 6, 3, 9, 0, tzinfo=UTC)
    assert first.next_reminder_bucket == "2025-06-03-09"
    assert first.reminder_claim is None and first.reminder_lease_until is None
    assert UserStats.get(learners[10]).next_reminder_at == NOON + timedelta(hours=3)
    assert "buckets read: 4, due: 10, sent: 10, skipped: 0, failed: 0" in output
    assert sending.read_watermark() == reminder_bucket(NOON)


def test_a_reminder_links_to_the_learners_page_by_its_absolute_address(learners):
    run(NOON)

    [message] = [m for m in mail.outbox if m.to == [f"{learners[0]}@example.com"]]
    assert f"https://skillboard.test/learners/{learners[0]}/" in message.body


def test_a_second_run_sends_nothing_again(learners):
    run(NOON)
    mail.outbox.clear()

    output = run(NOON + timedelta(minutes=5))

    assert mail.outbox == []
    assert "buckets read: 1, due: 0" in output


def test_a_dry_run_changes_nothing(learners):
    before = {s.username: s.to_display() for s in UserStats.scan()}

    output = run(NOON, dry_run=True)

    assert mail.outbox == []
    assert {s.username: s.to_display() for s in UserStats.scan()} == before
    assert "due: 10, sent: 0" in output
    assert sending.read_watermark() == reminder_bucket(NOON - timedelta(hours=3))


def test_a_dry_run_lists_each_learner_with_the_hour_and_the_channel(learners):
    User.get(learners[4]).soft_delete()

    output = run(NOON, dry_run=True)

    lines = output.splitlines()
    # learner00 is due at 09:10 (hour bucket 09), learner09 at 11:43 (bucket 11).
    assert "would send: learner00 by email at hour 2025-06-02-09" in lines
    assert "would send: learner09 by email at hour 2025-06-02-11" in lines
    assert "would skip: learner04 at hour 2025-06-02-10 (deleted)" in lines
    assert sum(line.startswith("would ") for line in lines) == 10
    # Then the counts, as a run says them; still nothing sent or written.
    assert lines[10].startswith("Dry run, nothing sent or changed: buckets read: 4, due: 10")
    assert mail.outbox == []
    assert UserStats.get(learners[0]).reminder_claim is None


def test_a_worker_that_missed_a_day_catches_up(learners):
    output = run(NOON + timedelta(days=1, hours=7))

    # The ten were due yesterday, the two later ones since: each gets one reminder.
    assert sent_to() == Counter({f"{n}@example.com": 1 for n in learners[:12]})
    assert "buckets read: 35" in output
    nxt = UserStats.get(learners[0]).next_reminder_at
    assert nxt == datetime(2025, 6, 4, 9, 0, tzinfo=UTC)


@pytest.mark.usefixtures("atomic_writes")
def test_two_runs_started_together_send_each_reminder_once(learners):
    run_together(lambda: run(NOON), 2)

    assert sent_to() == Counter({f"{n}@example.com": 1 for n in learners[:10]})
    assert all(UserStats.get(n).last_reminded_at is not None for n in learners[:10])


class Crash(BaseException):
    """The worker process dies (not an error the run could record)."""


def test_a_run_killed_after_claiming_loses_nothing(learners, monkeypatch):
    def die(stats, user):
        raise Crash

    monkeypatch.setattr(sending, "deliver", die)
    with pytest.raises(Crash):
        run(NOON)
    monkeypatch.undo()
    claimed = UserStats.get(learners[0])
    assert claimed.reminder_claim is not None and mail.outbox == []

    # Within the lease the claimed reminder waits; the rest go out.
    output = run(NOON + timedelta(minutes=2))
    assert sent_to() == Counter({f"{n}@example.com": 1 for n in learners[1:10]})
    assert "skipped: 1" in output
    assert sending.read_watermark() == reminder_bucket(claimed.next_reminder_at)

    # Once the lease expires the next run sends it.
    run(NOON + timedelta(minutes=6))
    assert sent_to() == Counter({f"{n}@example.com": 1 for n in learners[:10]})
    assert UserStats.get(learners[0]).reminder_claim is None
    assert sending.read_watermark() == reminder_bucket(NOON)


def test_a_failed_send_exits_non_zero_and_is_retried_with_an_attempt_count(learners, monkeypatch):
    deliver = sending.deliver

    def refuse(stats, user):
        if user.username == learners[3]:
            raise OSError("mail server refused")
        deliver(stats, user)

    monkeypatch.setattr(sending, "deliver", refuse)
    with pytest.raises(CommandError, match="1 reminder failed"):
        run(NOON)
    failed = UserStats.get(learners[3])
    assert failed.reminder_attempts == 1
    assert "mail server refused" in failed.last_reminder_error
    assert failed.next_reminder_at is not None and failed.reminder_claim is None
    monkeypatch.undo()

    output = run(NOON + timedelta(minutes=1))

    assert sent_to()[f"{learners[3]}@example.com"] == 1
    assert "due: 1, sent: 1" in output
    retried = UserStats.get(learners[3])
    assert (retried.reminder_attempts, retried.last_reminder_error) == (0, None)


def test_a_bad_now_is_refused(dynamo):
    with pytest.raises(CommandError, match="ISO-8601"):
        run_raw("yesterday")


def run_raw(now: str) -> None:
    call_command("send_reminders", now=now, stdout=StringIO())


def test_a_soft_deleted_learner_gets_no_reminder_and_a_restored_one_gets_them_again(learners):
    gone = learners[10]  # due at 15:00, no chosen hour: the dropped reminder's hour is kept
    User.get(gone).soft_delete()

    run(NOON + timedelta(hours=4))

    assert f"{gone}@example.com" not in sent_to()
    dropped = UserStats.get(gone)
    assert (dropped.next_reminder_at, dropped.reminder_hour) == (None, 15)
    User.get(gone).restore()
    resumed = UserStats.get(gone)
    assert resumed.next_reminder_at.hour == 15
    assert resumed.next_reminder_bucket == reminder_bucket(resumed.next_reminder_at)


@pytest.fixture
def zoe(dynamo):
    """Zoe's 01:00 reminder of 1 June was missed: the worker was down that night."""
    User("zoe", name="Zoe", email="zoe@example.com").save()
    stats = learner("zoe", datetime(2025, 6, 1, 1, 0, tzinfo=UTC), hour=1)
    stats.save()
    return stats


def test_an_overdue_reminder_caught_up_just_before_the_next_is_due_is_the_days_only_mail(zoe):
    run(datetime(2025, 6, 2, 0, 58, tzinfo=UTC))
    output = run(datetime(2025, 6, 2, 1, 5, tzinfo=UTC))

    assert sent_to() == Counter({"zoe@example.com": 1})
    assert "due: 0" in output
    assert UserStats.get("zoe").next_reminder_at == datetime(2025, 6, 3, 1, 0, tzinfo=UTC)


def test_a_reminder_due_minutes_after_the_last_one_sent_is_put_off_to_the_next_day(zoe):
    # As an earlier release scheduled it: the next 01:00 right after a late catch-up.
    zoe.last_reminded_at = datetime(2025, 6, 2, 0, 58, tzinfo=UTC)
    zoe.schedule_reminder(datetime(2025, 6, 2, 1, 0, tzinfo=UTC))
    zoe.save()

    output = run(datetime(2025, 6, 2, 1, 5, tzinfo=UTC))

    assert mail.outbox == []
    assert "sent: 0, skipped: 1" in output
    stored = UserStats.get("zoe")
    assert stored.next_reminder_at == datetime(2025, 6, 3, 1, 0, tzinfo=UTC)
    assert stored.reminder_claim is None
    assert stored.last_reminded_at == datetime(2025, 6, 2, 0, 58, tzinfo=UTC)
