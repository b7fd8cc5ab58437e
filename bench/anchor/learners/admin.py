"""The learner's admin as users/admin.py and stats/admin.py register it for DynamoDB.

Same list_display, list_filter, search, date hierarchy, ordering, fieldsets, read-only
fields, page size and inlines (the user-skills tabular, the stats stacked). Where an option
has no exact ORM counterpart the closest fair one is chosen, and the comment says so.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin

from .models import User, UserSkill, UserStats


class UserSkillForm(forms.ModelForm):
    """A stored row's skill_id is its key: shown, not editable (Skillboard disables it too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields["skill_id"].disabled = True


class UserSkillInline(admin.TabularInline):
    model = UserSkill
    form = UserSkillForm
    fk_name = "username"
    fields = ("skill_id", "proficiency", "years", "notes", "skill_name", "category")
    readonly_fields = ("skill_name", "category")
    extra = 1

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "notes":
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 60})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


class UserStatsInline(admin.StackedInline):
    model = UserStats
    fk_name = "username"
    fields = ("xp", "streak", "efficiency", "accuracy", "next_reminder_at", "leaderboard_partition")
    readonly_fields = ("leaderboard_partition",)
    max_num = 1
    verbose_name_plural = "stats"


class DeletedFilter(admin.SimpleListFilter):
    """Skillboard's Scan of the sparse gsi_deleted_at; here its partial index."""

    title = "soft-deleted"
    parameter_name = "deleted"

    def lookups(self, request, model_admin):
        return [("yes", "Deleted, awaiting purge")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=False)
        return queryset


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    list_display = ("username", "name", "email", "created_at", "deleted_at")
    list_filter = [DeletedFilter]
    # Skillboard's "=username" is a key lookup, exact; Django's "=" is iexact, which neither
    # SQLite nor PostgreSQL answers from the primary key, so the exact lookup is named instead.
    # Skillboard's name and email search is by word prefix; Django's, icontains (a LIKE).
    search_fields = ("username__exact", "name", "email")
    # Skillboard's hierarchy is by month on gsi_created_month; Django's drills down
    # created_at (years, months, then the days that have sign-ups).
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    # Skillboard's default page size (Django's is 100).
    list_per_page = 50
    # Skillboard shows no total (DynamoDB has no count); Django still counts the rows its
    # paginator pages through.
    show_full_result_count = False
    # Skillboard shows created_at, updated_at and version read-only on every item.
    readonly_fields = ("password_hash", "created_month", "created_at", "updated_at", "version")
    fieldsets = (
        (None, {"fields": ("username", "name", "email")}),
        ("Account", {"fields": ("password_hash", "deleted_at")}),
        ("Record", {"fields": ("created_month", "created_at", "updated_at", "version")}),
    )
    inlines = (UserSkillInline, UserStatsInline)

    def get_readonly_fields(self, request, obj=None):
        """The username is the key: editable when adding, read-only once stored."""
        if obj is not None:
            return ("username", *self.readonly_fields)
        return self.readonly_fields
