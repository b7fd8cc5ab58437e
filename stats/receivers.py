"""Keep the leaderboards, reminders and statistics in sync with learners' accounts."""

from __future__ import annotations

from django.dispatch import receiver

from dynamo.batch import Partition
from dynamo.models import DynamoModel, utcnow
from dynamo_admin.models import AdminLog
from users.signals import deletion_changed, demo_learner_made, owned, purging, renamed

from .demo import demo_stats
from .history.models import SessionKey, StudyDay, StudySession
from .models import UserStats
from .reminders import sending


@receiver(deletion_changed)
def follow_soft_deletes(sender, user, **kwargs) -> None:
    """Take a soft-deleted learner off the boards; bring a restored one back, reminders too."""
    UserStats.show_on_board(user.username, visible=not user.is_deleted)
    if not user.is_deleted:
        sending.resume(user.username, utcnow())


# Set on a learner whose save wrote the new name onto their stats in its own transaction.
NAME_COPIED_IN_SAVE = "stats_name_copied_in_save"


@receiver(renamed)
def copy_the_new_name(sender, user, **kwargs) -> None:
    """Rewrite the name the leaderboards show (nothing to do before the learner has stats)."""
    if not getattr(user, NAME_COPIED_IN_SAVE, False):
        UserStats.copy_name(user)


@receiver(purging)
def delete_purged_stats(sender, user, **kwargs) -> tuple[str, int]:
    """Delete a purged learner's stats and forget their logged values."""
    stats = UserStats.get_or_none(user.username, consistent_read=True)
    if stats is not None:
        stats.delete(add_version_condition=False)
    # By key, so a purge finished by a re-run forgets them too.
    AdminLog.forget_items([UserStats(user.username)])
    return ("stats", int(stats is not None))


@receiver(owned)
def study_history_of(sender, user, **kwargs) -> list[Partition]:
    """Give a hard delete the learner's study sessions, days and Idempotency-Keys."""
    return [Partition(model, user.username) for model in (StudySession, StudyDay, SessionKey)]


@receiver(demo_learner_made)
def stats_for_demo_learner(sender, user, random_seed, now, **kwargs) -> list[DynamoModel]:
    """Give each learner `seed` makes their statistics and the study history they sum."""
    return demo_stats(user, random_seed=random_seed, now=now, skills=kwargs.get("skills", ()))
