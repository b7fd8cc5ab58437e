from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.admin import action
from django.contrib.admin import site as admin_site
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from dynamo.words import BadSearch
from dynamo_admin.decorators import register
from dynamo_admin.filters import IndexFilter
from dynamo_admin.keys import object_id
from dynamo_admin.options import DynamoModelAdmin, StackedInline, ViewOnlyModelAdmin
from dynamo_admin.sources import IndexQuery, TableQuery
from dynamo_admin.writes import Update, Write
from users.admin import UserAdmin
from users.models import LearnerWord, User

from .forms import CorrectionForm, StudySessionForm
from .history.models import StudySession
from .history.recording import record_correction, record_session
from .models import METRICS, UserStats, leaderboard_partitions, reminder_bucket
from .receivers import NAME_COPIED_IN_SAVE

# A sessions search naming more learners than one lists up to this many of them.
MATCHES_NAMED = 5


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

    def condition(self, value: str):
        partition = value.partition("@")[2]
        if partition not in leaderboard_partitions():
            raise ValueError(f"{partition!r} is not a leaderboard partition.")
        return "leaderboard_partition", UserStats.leaderboard_partition == partition


class ReminderBucketFilter(IndexFilter):
    """Users whose next reminder falls in one UTC hour."""

    title = "reminder hour (UTC)"
    parameter_name = "next_reminder_bucket"
    index_name = "gsi_user_stats_reminders"

    def lookups(self, request, model_admin):
        now = timezone.now()
        return [(reminder_bucket(now + timedelta(hours=h)),) * 2 for h in range(6)]


# What a learner's study history adds up to, and the streak it gives: never typed.
TOTALS = (
    *METRICS,
    "sessions",
    "questions_answered",
    "questions_correct",
    "minutes_studied",
    "last_active_day",
    "streak_expires_on",
)
REMINDER_WORKER_FIELDS = (
    "next_reminder_bucket",
    "last_reminded_at",
    "reminder_claim",
    "reminder_lease_until",
    "reminder_attempts",
    "last_reminder_error",
)


class UserStatsInline(StackedInline):
    """A learner's stats on the learner's page: stats depend on users, not the reverse."""

    model = UserStats
    fk_name = "username"
    fields = (*METRICS, "sessions", "next_reminder_at", "leaderboard_partition")
    # Totals are what the study history adds up to: only a recorded session moves them.
    readonly_fields = (*TOTALS, "leaderboard_partition")
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
    )  # the next reminder is on the change page and its filter: six columns fit at 1024 px
    list_filter = [LeaderboardFilter, ReminderBucketFilter]
    search_fields = ("=username",)

    # By XP by default, each metric's header sorting through its leaderboard index both ways.
    ordering = ("-xp", "-streak", "-efficiency", "-accuracy", "next_reminder_at")
    fieldsets = (
        (None, {"fields": ("username",)}),
        ("Totals", {"fields": TOTALS}),
        ("Reminders", {"fields": ("reminder_hour", "next_reminder_at", *REMINDER_WORKER_FIELDS)}),
        ("Leaderboard", {"fields": ("name", "leaderboard_partition")}),
        ("Record", {"fields": ("created_at", "updated_at", "version")}),
    )
    readonly_fields = (
        *TOTALS,  # the study history's sums: a recorded session moves them
        *REMINDER_WORKER_FIELDS,  # send_reminders' own bookkeeping
        "name",  # copied from the user; follows renames
        "leaderboard_partition",
    )
    actions = ["record_study_session", "correct_xp"]

    @action(permissions=["change"], description="Correct XP (with a reason)")
    def correct_xp(self, request, items):
        """Ask how much XP and why, then record a correction in each learner's history."""
        form = CorrectionForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            corrected = 0
            for item in items:
                try:
                    record_correction(
                        item.username, **form.cleaned_data, actor=request.user.get_username()
                    )
                except ValidationError as exc:
                    if len(items) == 1:
                        form.add_error(None, exc.messages)
                        break
                    messages.error(request, f"{item.username}: {'; '.join(exc.messages)}")
                    continue
                corrected += 1
            else:
                messages.success(
                    request,
                    ngettext(
                        "Corrected the XP of %(count)d learner.",
                        "Corrected the XP of %(count)d learners.",
                        corrected,
                    )
                    % {"count": corrected},
                )
                return None
        return self.action_form_page(
            request, form, items, "correct_xp", "Correct XP", "correct_xp.html"
        )

    def get_index_partitions(self, request, index):
        """Return the leaderboard shards (`ALL`, or `ALL#0` … `ALL#k`) of a leaderboard index."""
        if index.Meta.index_name.startswith("gsi_leaderboard_"):
            return leaderboard_partitions()
        return super().get_index_partitions(request, index)

    @action(permissions=["change"], description="Record a study session")
    def record_study_session(self, request, items):
        """Ask for the session's figures, then record it for each selected user."""
        form = StudySessionForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            recorded, refusals = 0, []
            for item in items:
                try:
                    record_session(
                        item.username,
                        **form.cleaned_data,
                        source="admin",
                        actor=request.user.get_username(),
                    )
                except ValidationError as exc:
                    refusals.append((item, exc))
                    continue
                recorded += 1
            if len(items) == 1 and refusals:
                form.show_errors(refusals[0][1])  # one learner: say why on the form, as forms do
            else:
                for item, exc in refusals:
                    messages.error(request, f"{item.username}: {'; '.join(exc.messages)}")
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
        return self.action_form_page(
            request,
            form,
            items,
            "record_study_session",
            "Record a study session",
            "record_session.html",
        )

    def action_form_page(
        self, request, form, items: list[UserStats], name: str, title: str, template: str
    ):
        """Render an action's page: its form for the selected learners."""
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "subtitle": None,
            "opts": self.opts,
            "form": form,
            "items": items,
            "selected": [object_id(item) for item in items],
            "action_name": name,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates(template), context)


@register(StudySession)
class StudySessionAdmin(ViewOnlyModelAdmin):
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
        "reason",
    )
    # `?q=ada` is one Query on the learner's partition, newest first; without a search every
    # learner's sessions come newest first, month by month (gsi_started_month).
    search_fields = ("=username",)
    search_help_text = gettext_lazy(
        "Type a learner's username, or the beginning of their name or email (“kofi m”), for "
        "their sessions, newest first."
    )
    date_hierarchy = "gsi_started_month"
    ordering = ("-session_id",)

    def get_search_results(self, request, queryset, search_term: str):
        """Read the sessions of the one learner a search names (the learner search)."""
        try:
            found = LearnerWord.find(search_term, limit=MATCHES_NAMED)
        except BadSearch:
            found = []  # the key lookup says what is wrong
        exact = [u for u in found if u.username == search_term.strip()]
        if exact or len(found) == 1:
            return TableQuery((exact or found)[0].username, range_key="session_id"), False
        if found:
            names = ", ".join(u.username for u in found)
            raise ValueError(
                _("Several learners match “%(text)s”: %(names)s. Search one username.")
                % {"text": search_term, "names": names}
            )
        return super().get_search_results(request, queryset, search_term)
