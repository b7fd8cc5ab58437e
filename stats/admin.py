from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.admin import action
from django.contrib.admin import site as admin_site
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import ngettext

from dynamo_admin.decorators import register
from dynamo_admin.filters import IndexFilter
from dynamo_admin.keys import object_id
from dynamo_admin.options import DynamoModelAdmin, StackedInline
from dynamo_admin.sources import IndexQuery
from dynamo_admin.writes import Update, Write
from users.admin import UserAdmin
from users.models import User

from .activity import record_session
from .forms import StudySessionForm
from .history import StudySession
from .models import METRICS, UserStats, leaderboard_partitions, reminder_bucket
from .receivers import NAME_COPIED_IN_SAVE


class LeaderboardFilter(IndexFilter):
    """Rank users by one metric: a Query on that metric's leaderboard index."""

    title = "leaderboard"
    parameter_name = "leaderboard"
    index_name = "gsi_leaderboard_xp"

    def lookups(self, request, model_admin):
        partitions = leaderboard_partitions()
        for metric in METRICS:
            for partition in partitions:
                label = metric if len(partitions) == 1 else f"{metric} ({partition})"
                yield f"{metric}@{partition}", f"By {label}"

    @classmethod
    def sort_keys(cls, model) -> list[str]:
        return list(METRICS)  # one leaderboard index per metric, each sorted by it

    def source(self, value: str):
        metric, _, partition = value.partition("@")
        if partition not in leaderboard_partitions():
            raise ValueError(f"{partition!r} is not a leaderboard partition.")
        return IndexQuery(UserStats.leaderboard_index(metric), partition)


class ReminderBucketFilter(IndexFilter):
    """Users whose next reminder falls in one UTC hour."""

    title = "reminder hour (UTC)"
    parameter_name = "next_reminder_bucket"
    index_name = "gsi_user_stats_reminders"

    def lookups(self, request, model_admin):
        now = timezone.now()
        return [(reminder_bucket(now + timedelta(hours=h)),) * 2 for h in range(6)]


class UserStatsInline(StackedInline):
    """A learner's stats on the learner's page: stats depend on users, not the reverse."""

    model = UserStats
    fk_name = "username"
    fields = ("xp", "streak", "efficiency", "accuracy", "next_reminder_at", "leaderboard_partition")
    readonly_fields = ("leaderboard_partition",)
    max_num = 1
    verbose_name_plural = "stats"

    def new_item(self, parent: User) -> UserStats:
        stats = super().new_item(parent)
        stats.learner = parent  # on an add page, the learner written in the same transaction
        return stats


# Django's way to extend another app's admin: register a subclass whose hook adds the inline.
admin_site.unregister(User)


@register(User)
class LearnerAdmin(UserAdmin):
    """The users' admin with each learner's stats inline and a link to their study sessions."""

    change_form_template = "admin/stats/learner_change_form.html"

    def get_inlines(self, request, obj: User | None = None) -> list:
        return [*super().get_inlines(request, obj), UserStatsInline]

    def transaction_updates(self, request, item: User, writes: list[Write], formsets):
        """Copy a new name onto the stats the page read, in the save's transaction.

        Their version stays (a session recorded meanwhile does not fail the save); stats the
        page writes carry the name in their own put; without stats read, the rename signal
        copies it after the save as for any other write path.
        """
        updates = super().transaction_updates(request, item, writes, formsets)
        if not item.was_stored_with("name") or item.stored_value("name") == item.name:
            return updates
        read = [
            oid
            for formset in formsets
            if isinstance(formset.inline, UserStatsInline)
            for oid in formset.items
            if oid not in formset.gone
        ]
        written = [write for write in writes if isinstance(write.item, UserStats)]
        for write in written:
            write.item.name = item.name  # one action per item: the stats' own put carries it
        if read and not written:
            copy = [UserStats.name_copied_from(item)]
            updates.append(Update(UserStats, (item.username,), copy, UserStats.username.exists()))
        if read or written:
            setattr(item, NAME_COPIED_IN_SAVE, True)
        return updates


@register(UserStats)
class UserStatsAdmin(DynamoModelAdmin):
    list_display = (
        "username",
        "name",
        "xp",
        "streak",
        "efficiency",
        "accuracy",
        "next_reminder_at",
    )
    list_filter = [LeaderboardFilter, ReminderBucketFilter]
    search_fields = ("=username",)
    ordering = ("-xp", "-streak", "-efficiency", "-accuracy", "next_reminder_at")
    readonly_fields = (
        "name",  # copied from the user; follows renames
        "leaderboard_partition",
        "next_reminder_bucket",
        "last_reminded_at",
    )
    actions = ["record_study_session"]

    @action(permissions=["change"], description="Record a study session")
    def record_study_session(self, request, items):
        """Ask for the session's figures, then record it for each selected user."""
        form = StudySessionForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            recorded = 0
            for item in items:
                try:
                    record_session(
                        item.username,
                        **form.cleaned_data,
                        source="admin",
                        actor=request.user.get_username(),
                    )
                except ValidationError as exc:
                    messages.error(request, f"{item.username}: {'; '.join(exc.messages)}")
                    continue
                recorded += 1
            messages.success(
                request,
                ngettext(
                    "Recorded a study session for %(count)d learner.",
                    "Recorded a study session for %(count)d learners.",
                    recorded,
                )
                % {"count": recorded},
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Record a study session",
            "subtitle": None,
            "opts": self.opts,
            "form": form,
            "items": items,
            "selected": [object_id(item) for item in items],
            "action_name": "record_study_session",
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("record_session.html"), context)


@register(StudySession)
class StudySessionAdmin(DynamoModelAdmin):
    """Study sessions, read-only: they change only with the totals they moved (record_session)."""

    list_display = (
        "username",
        "started_at",
        "xp",
        "questions_answered",
        "questions_correct",
        "minutes",
        "skill_id",
        "source",
    )
    # `?q=ada` is one Query on the learner's partition, newest first.
    search_fields = ("=username",)
    ordering = ("-session_id",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
