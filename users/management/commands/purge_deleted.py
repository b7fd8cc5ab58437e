"""The gardener: purge users soft-deleted longer than the retention, with what they own."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings

from dynamo.batch import batch_delete
from dynamo.exceptions import ConflictError
from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from users.models import User, UserSkill
from users.signals import purging


@dataclass
class Purge:
    """What purging one user did: `outcome` is purged, restored or gone (purged elsewhere)."""

    outcome: str
    skills: int = 0
    others: dict[str, int] = field(default_factory=dict)  # what receivers of `purging` removed


class Command(DynamoCommand):
    help = (
        "Purge users soft-deleted more than USER_PURGE_AFTER_DAYS days ago, with their "
        "user-skills and what other apps keep of them (stats). Reads the sparse index "
        "gsi_deleted_at; claims each user "
        "(conditional on the version read, so a user restored meanwhile is kept), then deletes "
        "its children and the user last, so a re-run finishes a purge that died half-way."
    )
    verbosity = 1

    def add_arguments(self, parser):
        add_dry_run_argument(parser, "Change nothing; list who would be purged.")

    def handle(self, *args, dry_run: bool = False, **options):
        self.verbosity = options["verbosity"]
        retention = settings.USER_PURGE_AFTER_DAYS
        now = utcnow()
        deleted = list(User.gsi_deleted_at.scan())
        due = sorted(
            (user for user in deleted if user.purge_due(now, retention)),
            key=lambda user: user.deleted_at,
        )
        waiting = len(deleted) - len(due)
        not_due = f"{waiting} soft-deleted not due yet (retention {retention} days)"
        if dry_run:
            for user in due:
                self.stdout.write(f"Would purge {user.username} ({self.deleted_since(user, now)})")
            self.stdout.write(
                f"Dry run: would purge {len(due)} users; {not_due}. Nothing was changed."
            )
            return
        cutoff = now - timedelta(days=retention)
        purges = [self.handle_one(user, cutoff) for user in due]
        done = [p for p in purges if p.outcome == "purged"]
        restored = sum(1 for p in purges if p.outcome == "restored")
        removed = [f"{sum(p.skills for p in purges)} user-skills"]
        others: dict[str, int] = {}
        for purge in purges:
            for what, count in purge.others.items():
                others[what] = others.get(what, 0) + count
        removed += [f"{count} {what}" for what, count in sorted(others.items())]
        self.stdout.write(
            self.style.SUCCESS(
                f"Purged {len(done)} users with {' and '.join(removed)}; "
                f"kept {restored} restored meanwhile; {not_due}."
            )
        )

    def handle_one(self, user: User, cutoff: datetime) -> Purge:
        """Purge one user deleted before `cutoff` with its children, unless it came back."""
        fresh = User.get_or_none(user.username, consistent_read=True)
        if fresh is None:
            return Purge("gone")
        restored = fresh.purge_started_at is None and (
            fresh.deleted_at is None or fresh.deleted_at > cutoff
        )
        if restored or (fresh.purge_started_at is None and not fresh.claim_for_purge(cutoff)):
            self.stdout.write(f"Kept {user.username}: restored since the index was read.")
            return Purge("restored")
        # Claimed: nobody can restore it now, so the children can go, then the user.
        owned = list(UserSkill.query(user.username))
        skills = batch_delete(UserSkill, owned)
        others: dict[str, int] = {}
        for _, (what, count) in purging.send(type(self), user=fresh):
            others[what] = others.get(what, 0) + count
        for partition in fresh.owned_partitions():
            if count := partition.delete():
                what = str(partition.model.verbose_name_plural)
                others[what] = others.get(what, 0) + count
        try:
            fresh.delete(condition=User.purge_started_at.exists(), add_version_condition=False)
        except ConflictError:
            return Purge("gone")  # another gardener finished it first
        # No personal values stay in the history (receivers of `purging` forget their own).
        AdminLog.forget_items([fresh, *owned])
        if self.verbosity >= 2:
            self.stdout.write(f"Purged {user.username} and {skills} user-skills.")
        return Purge("purged", skills=skills, others=dict(others))

    @staticmethod
    def deleted_since(user: User, now: datetime) -> str:
        days = (now - user.deleted_at).days
        return f"deleted {user.deleted_at:%Y-%m-%d %H:%M} UTC, {days} days ago"
