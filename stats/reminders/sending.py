"""Send due study reminders once each: hour buckets, a claim with a lease, a watermark.

A run reads every hour bucket of `gsi_user_stats_reminders` from the stored watermark up to
the hour of `now`, and for each reminder due at or before `now`:

1. claims it with one conditional UpdateItem (the reminder time is still the one read and no
   unexpired lease is held) that writes a claim token and a lease;
2. sends the email through Django's email backend;
3. records it with one UpdateItem conditioned on the claim token: `last_reminded_at`, the next
   daily reminder (at least MIN_GAP later, so an overdue reminder caught up just before the
   next falls due is that day's only one), and the claim removed. A reminder falling due
   within MIN_GAP of the last one sent is put off to the next day unsent. A failed send
   records the error, counts the attempt and leaves the reminder due for the next run (after
   MAX_ATTEMPTS it moves on to the next day).

The watermark is the earliest hour bucket that may still hold a due reminder. It lives in the
jobs table (`workers.jobs`, job `send_reminders`): the claims and the watermark then live in
one engine with one consistency model, across every host that runs the worker, with no SQL
database to share. A watermark an earlier release kept in the user-stats table (under the
key `#send_reminders`) is moved there on the first run. A run moves it forward only to the
earliest bucket where it left something behind (a reminder leased by another worker), else to
the current hour, which every run reads again; two runs finishing together keep the earlier
of their two.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from stats.models import BUCKET_FORMAT, UserStats, forget_legacy_item, legacy_item, reminder_bucket
from users.models import User
from workers import jobs

JOB = "send_reminders"
LEGACY_WATERMARK_KEY = "#send_reminders"
LEASE = timedelta(minutes=5)
# A daily reminder: never two within this time, even when an overdue one is caught up late
# just before the next one falls due (the next is then the following day's).
MIN_GAP = timedelta(hours=12)
MAX_ATTEMPTS = 5
FIRST_RUN_LOOKBACK = timedelta(days=7)


@dataclass
class Planned:
    """What a run would do with one due reminder: send it through a channel, or skip it."""

    username: str
    bucket: str
    channel: str | None = "email"
    reason: str = ""

    def __str__(self) -> str:
        if self.channel is None:
            return f"would skip: {self.username} at hour {self.bucket} ({self.reason})"
        return f"would send: {self.username} by {self.channel} at hour {self.bucket}"


@dataclass
class Summary:
    """What one run did."""

    buckets: int = 0
    due: int = 0
    sent: int = 0
    skipped: int = 0
    failed: int = 0
    watermark_from: str = ""
    watermark_to: str = ""
    errors: list[str] = field(default_factory=list)
    planned: list[Planned] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"buckets read: {self.buckets}, due: {self.due}, sent: {self.sent}, "
            f"skipped: {self.skipped}, failed: {self.failed}"
        )


# --- schedule -------------------------------------------------------------------------------
def next_daily(stats: UserStats, after: datetime) -> datetime:
    """Return the user's next daily reminder strictly after `after` (the chosen UTC hour)."""
    if stats.reminder_hour is not None:
        hour, minute = int(stats.reminder_hour), 0
    else:
        hour, minute = stats.next_reminder_at.hour, stats.next_reminder_at.minute
    after = after.astimezone(UTC)
    candidate = after.replace(hour=hour, minute=minute, second=0, microsecond=0)
    while candidate <= after:
        candidate += timedelta(days=1)
    return candidate


def next_bucket(bucket: str) -> str:
    """Return the hour bucket after `bucket`."""
    hour = datetime.strptime(bucket, BUCKET_FORMAT).replace(tzinfo=UTC)
    return reminder_bucket(hour + timedelta(hours=1))


# --- watermark ------------------------------------------------------------------------------
def read_watermark() -> str | None:
    """Return the stored watermark bucket, or None before the first run."""
    stored = jobs.read_watermark(JOB)
    return stored if stored is not None else adopt_legacy_watermark()


def adopt_legacy_watermark() -> str | None:
    """Move a watermark kept by an earlier release in the user-stats table to the jobs table."""
    legacy = legacy_item(LEGACY_WATERMARK_KEY)
    if legacy is None:
        return None
    watermark = legacy.get("watermark", {}).get("S")
    stored = jobs.store_watermark(JOB, None, watermark) if watermark else None
    forget_legacy_item(LEGACY_WATERMARK_KEY)
    return stored


def store_watermark(read: str | None, proposal: str) -> str:
    """Store `proposal` if the watermark is still `read`, else the earlier of the two."""
    return jobs.store_watermark(JOB, read, proposal)


# --- one reminder ---------------------------------------------------------------------------
def deliver(stats: UserStats, user: User) -> None:
    """Email one reminder through the configured backend."""
    streak = int(stats.streak or 0)
    if streak:
        nudge = f"You are on a {streak}-day streak: one short session keeps it going."
    else:
        nudge = "A short session today starts a new streak."
    send_mail(
        subject="Time for today's practice",
        message=(
            f"Hi {user.name},\n\n{nudge}\nYou have {int(stats.xp or 0):,} XP so far.\n\n"
            f"See your year of study: {settings.SITE_URL}"
            f"{reverse('learner', args=[user.username])}\n"
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[user.email],
    )


def resume(username: str, now: datetime) -> datetime | None:
    """Schedule a restored learner's daily reminder again; return when, or None if none."""
    stats = UserStats.get_or_none(username, consistent_read=True)
    if stats is None or stats.reminder_hour is None or stats.next_reminder_at is not None:
        return None
    when = next_daily(stats, now)
    return when if UserStats.resume_reminder(username, when) else None


# --- a run ----------------------------------------------------------------------------------
class Run:
    """One pass of the reminder worker over the buckets from the watermark to `now`."""

    def __init__(
        self,
        now: datetime,
        *,
        dry_run: bool = False,
        lease: timedelta = LEASE,
        send: Callable[[UserStats, User], None] | None = None,
    ) -> None:
        self.now = now.astimezone(UTC)
        self.dry_run = dry_run
        self.lease = lease
        self.send = send or deliver
        self.token = uuid.uuid4().hex
        self.summary = Summary()
        self.held: list[str] = []
        self._started = time.monotonic()

    def clock(self) -> datetime:
        """Return `now` moved on by the time this run has taken."""
        return self.now + timedelta(seconds=time.monotonic() - self._started)

    def __call__(self) -> Summary:
        walk = jobs.WatermarkWalk(
            JOB,
            start=reminder_bucket(self.now - FIRST_RUN_LOOKBACK),
            last=reminder_bucket(self.now),
            following=next_bucket,
            stored=read_watermark,
        )
        self.summary.watermark_from = walk.first
        seen: set[str] = set()
        for bucket in walk.positions():
            self.summary.buckets += 1
            due = UserStats.gsi_user_stats_reminders.query(
                bucket, range_key_condition=UserStats.next_reminder_at <= self.now
            )
            for stats in due:
                if stats.username in seen:
                    continue  # retried within this run: already counted
                seen.add(stats.username)
                self.summary.due += 1
                if self.dry_run:
                    self.summary.planned.append(self.plan_one(stats, bucket))
                else:
                    self.handle_one(stats, bucket)
        if not self.dry_run:
            self.summary.watermark_to = walk.finish(min(self.held, default=None))
        return self.summary

    def plan_one(self, stats: UserStats, bucket: str) -> Planned:
        """Say what handle_one would do with this reminder, reading only."""
        lease = stats.reminder_lease_until
        if stats.reminder_claim is not None and lease is not None and lease >= self.now:
            return Planned(stats.username, bucket, None, "claimed by another run")
        user = User.get_or_none(stats.username)
        if user is None or user.is_deleted:
            return Planned(stats.username, bucket, None, "deleted")
        sent_at = stats.last_reminded_at
        if sent_at is not None and self.now - sent_at < MIN_GAP:
            later = next_daily(stats, sent_at + MIN_GAP)
            return Planned(stats.username, bucket, None, f"put off to {later:%Y-%m-%d %H:%M} UTC")
        return Planned(stats.username, bucket)

    def handle_one(self, stats: UserStats, bucket: str) -> None:
        claimed = stats.claim_reminder(self.token, self.clock(), self.lease)
        if claimed is None:
            current = UserStats.get_or_none(stats.username, consistent_read=True)
            if current is not None and current.next_reminder_at == stats.next_reminder_at:
                self.held.append(bucket)  # leased elsewhere: read this bucket again next run
            self.summary.skipped += 1
            return
        user = User.get_or_none(claimed.username)
        if user is None or user.is_deleted:
            claimed.drop_reminder(self.token)
            self.summary.skipped += 1
            return
        sent_at = claimed.last_reminded_at
        if sent_at is not None and self.clock() - sent_at < MIN_GAP:
            claimed.release_reminder(self.token, next_daily(claimed, sent_at + MIN_GAP))
            self.summary.skipped += 1
            return
        try:
            self.send(claimed, user)
        except Exception as exc:  # any failed send is recorded, retried, and fails the run
            attempts = self.give_back(claimed, f"{type(exc).__name__}: {exc}")
            self.summary.failed += 1
            self.summary.errors.append(f"{claimed.username} (attempt {attempts}): {exc}")
            return
        now = self.clock()
        claimed.complete_reminder(self.token, now, next_daily(claimed, now + MIN_GAP))
        self.summary.sent += 1

    def give_back(self, claimed: UserStats, error: str) -> int:
        """Record a failed send, leaving the reminder due for the next run; return the attempts."""
        now = self.clock()
        attempts = int(claimed.reminder_attempts or 0) + 1
        if attempts < MAX_ATTEMPTS:
            claimed.give_back_reminder(self.token, now, attempts, error)
        else:  # give this day up: the next daily reminder starts afresh
            claimed.give_back_reminder(self.token, next_daily(claimed, now), 0, error)
        return attempts


def send_due(
    now: datetime,
    *,
    dry_run: bool = False,
    lease: timedelta = LEASE,
    send: Callable[[UserStats, User], None] | None = None,
) -> Summary:
    """Send every reminder due at or before `now`; return what the run did."""
    return Run(now, dry_run=dry_run, lease=lease, send=send)()
