from __future__ import annotations

from datetime import date, timedelta

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin import action
from django.core.exceptions import ValidationError
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from catalog.models import Skill, name_key
from dynamo import limits
from dynamo.exceptions import ConflictError
from dynamo.models import utcnow
from dynamo_admin.decorators import register
from dynamo_admin.display import plain
from dynamo_admin.filters import IndexFilter, SparseIndexFilter
from dynamo_admin.models import CHANGE
from dynamo_admin.options import DynamoModelAdmin, TabularInline
from dynamo_admin.sources import IndexQuery
from dynamo_admin.writes import write_with_history

from .catalog_admin import SkillAdmin  # noqa: F401 (registers the catalog's skills)
from .models import LearnerWord, User, UserSkill


class NotesAsTextArea:
    """Edit a user-skill's notes in a text area."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field is UserSkill.notes:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 60})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class UserSkillInline(NotesAsTextArea, TabularInline):
    model = UserSkill
    fk_name = "username"
    fields = ("skill_id", "proficiency", "years", "notes", "skill_name", "category")
    readonly_fields = ("skill_name", "category")
    # 10,000 catalog skills are too many for a select: a Query per keystroke finds them.
    autocomplete_fields = ("skill_id",)
    extra = 1

    def new_item(self, parent: User) -> UserSkill:
        return super().new_item(parent).held_by(parent)


class DeletedFilter(SparseIndexFilter):
    title = "soft-deleted"
    parameter_name = "deleted"
    index_name = "gsi_deleted_at"
    label = "Deleted, awaiting purge"


def cached_pages_note() -> str:
    """Return when the public pages show a soft delete or a restore: their cache's lifetime.

    The board and the learner page are served from a cache for LEADERBOARD_CACHE_SECONDS
    (and browsers may keep them as long): dropping every variant on every host would cost
    each public request a cache round trip, so the message says when instead.
    """
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return ""
    return ngettext(
        "The leaderboard and their page show it within %(seconds)d second.",
        "The leaderboard and their page show it within %(seconds)d seconds.",
        seconds,
    ) % {"seconds": seconds}


@register(User)
class UserAdmin(DynamoModelAdmin):
    list_display = ("username", "name", "email", "created_at", "deleted_at")
    list_filter = [DeletedFilter]
    search_fields = ("=username", "name", "email")
    search_help_text = gettext_lazy(
        "Finds learners by the beginning of any word of their name, of their email or of "
        "their username, ignoring case and accents (“zoe ng”, “kofi.m”); an exact username "
        "comes first."
    )
    date_hierarchy = "gsi_created_month"
    ordering = ("-created_at",)
    # A soft delete and a restore are actions and buttons, each saying what it did.
    readonly_fields = ("password_hash", "created_month", "deleted_at")
    fieldsets = (
        (None, {"fields": ("username", "name", "email")}),
        ("Account", {"fields": ("password_hash", "deleted_at")}),
        ("Record", {"fields": ("created_month", "created_at", "updated_at", "version")}),
    )
    # Other apps attach their own inlines (stats adds the learner's stats).
    inlines = (UserSkillInline,)
    actions = ["soft_delete_selected", "restore_selected"]

    # --- soft delete and restore ----------------------------------------------------------
    @action(
        permissions=["change"],
        description=gettext_lazy("Soft-delete selected %(verbose_name_plural)s"),
    )
    def soft_delete_selected(self, request, users: list[User]) -> None:
        """Soft-delete the selected learners: off the board and the search until purged."""
        self.set_deleted(request, [u for u in users if not u.is_deleted], deleted=True)

    @action(
        permissions=["change"],
        description=gettext_lazy("Restore selected %(verbose_name_plural)s"),
    )
    def restore_selected(self, request, users: list[User]) -> None:
        """Restore the selected soft-deleted learners."""
        self.set_deleted(request, [u for u in users if u.is_deleted], deleted=False)

    def set_deleted(self, request, users: list[User], *, deleted: bool) -> list[User]:
        """Soft-delete or restore each learner on the version read, with a History entry.

        Say what was done (and, for a soft delete, when the gardener purges them) and which
        learners were refused; return the ones written.
        """
        done = []
        for user in users:
            old = user.deleted_at
            user.deleted_at = utcnow() if deleted else None
            try:
                write_with_history(
                    user,
                    CHANGE,
                    request.user.get_username(),
                    {"deleted_at": [plain(old), plain(user.deleted_at)]},
                )
            except (ConflictError, ValidationError) as exc:
                user.deleted_at = old
                text = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
                self.message_user(request, f"{user}: {text}", messages.ERROR)
                continue
            done.append(user)
        if not done:
            if not users:
                self.message_user(request, _("No learner needed that."), messages.WARNING)
            return done
        names = ", ".join(f"“{user}”" for user in done)
        if deleted:
            message = ngettext(
                "%(names)s left the leaderboard and the talent search; they are purged on"
                " %(date)s unless restored.",
                "%(names)s left the leaderboard and the talent search; they are purged on"
                " %(date)s unless restored.",
                len(done),
            ) % {"names": names, "date": formats.date_format(purge_date(done[0]))}
            message = f"{message} {cached_pages_note()}".rstrip()
        else:
            message = ngettext(
                "%(names)s is back on the leaderboard and in the talent search.",
                "%(names)s are back on the leaderboard and in the talent search.",
                len(done),
            ) % {"names": names}
            message = f"{message} {cached_pages_note()}".rstrip()
        self.message_user(request, message, messages.SUCCESS)
        return done

    def soft_delete_view(self, request, object_id: str):
        return self.set_deleted_view(request, object_id, deleted=True)

    def restore_view(self, request, object_id: str):
        return self.set_deleted_view(request, object_id, deleted=False)

    def set_deleted_view(self, request, object_id: str, *, deleted: bool):
        """The change page's button: soft-delete or restore on the version the page showed."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        self.require(self.has_change_permission(request))
        user = self.get_object(request, object_id)
        change_url = self.url_for("change", object_id)
        if user is None:
            return HttpResponseRedirect(self.url_for("changelist"))
        shown = request.POST.get("_version", "")
        if not (shown.isascii() and shown.isdigit()) or int(shown) != user.version:
            message = _(
                "Someone else changed or deleted the %(name)s “%(item)s” since you opened it."
            )
            self.message_user(
                request, message % {"name": user.verbose_name, "item": user}, messages.ERROR
            )
            return HttpResponseRedirect(change_url)
        if user.is_deleted != deleted:
            self.set_deleted(request, [user], deleted=deleted)
        return HttpResponseRedirect(change_url)

    def get_urls(self):
        prefix = f"{self.model.app_label}_{self.model.model_name}"
        wrap = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/soft-delete/",
                wrap(self.soft_delete_view),
                name=f"{prefix}_soft_delete",
            ),
            path("<path:object_id>/restore/", wrap(self.restore_view), name=f"{prefix}_restore"),
            *super().get_urls(),
        ]

    def get_related_items(self, request, obj: User) -> list:
        """Delete the learner's search words with them (never shown, never logged)."""
        return [*super().get_related_items(request, obj), *LearnerWord.entries_of(obj)]

    def delete_view(self, request, object_id: str, extra_context=None):
        context = {"soft_delete_instead": True, **(extra_context or {})}
        return super().delete_view(request, object_id, context)


def purge_date(user: User) -> date:
    """Return the day the gardener purges a soft-deleted learner (USER_PURGE_AFTER_DAYS)."""
    when = user.deleted_at + timedelta(days=settings.USER_PURGE_AFTER_DAYS)
    return timezone.localtime(when).date()


class SkillNameFilter(IndexFilter):
    title = "skill name"
    parameter_name = "skill_name"
    index_name = "gsi_skill_level"


@register(UserSkill)
class UserSkillAdmin(NotesAsTextArea, DynamoModelAdmin):
    # `level` is the proficiency as gsi_skill_level sorts it: within a chosen skill name its
    # header sorts both ways (one Query); shown with the proficiency's word.
    list_display = ("username", "skill_id", "skill_name", "level", "years", "updated_at")
    list_filter = ["skill_id", SkillNameFilter]
    search_fields = ("=username", "^skill_id")
    search_help_text = gettext_lazy(
        "Type a skill's name (any case: “python”) for everyone holding it, or a username "
        "for that learner's skills, optionally followed by the start of a skill id "
        "(“ychen k”)."
    )

    def get_search_results(self, request, queryset, search_term: str):
        """A catalog skill's name lists its holders (gsi_skill_id); else the key lookup."""
        key = name_key(search_term.strip())
        skill = None
        if key and limits.keys_fit((key,)):
            skill = next(iter(Skill.gsi_name_key.query(key, limit=1)), None)
        if skill is None:
            return super().get_search_results(request, queryset, search_term)
        return IndexQuery(UserSkill.gsi_skill_id, skill.skill_id), False

    ordering = ("username", "-level", "skill_id")
    readonly_fields = ("skill_name", "category", "level", "listed_skill_name")
    autocomplete_fields = ("skill_id",)

    def value_for(self, item: UserSkill, name):
        if name == "level" and item.level is not None:
            return f"{item.level} ({item.proficiency})"  # "3 (Advanced)"
        return super().value_for(item, name)
