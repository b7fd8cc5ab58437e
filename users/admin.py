from django import forms

from dynamo_admin.decorators import register
from dynamo_admin.filters import IndexFilter, SparseIndexFilter
from dynamo_admin.options import DynamoModelAdmin, TabularInline

from .models import User, UserSkill


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


@register(User)
class UserAdmin(DynamoModelAdmin):
    list_display = ("username", "name", "email", "created_at", "deleted_at")
    list_filter = [DeletedFilter]
    search_fields = ("=username",)
    date_hierarchy = "gsi_created_month"
    ordering = ("-created_at",)
    readonly_fields = ("password_hash", "created_month")
    fieldsets = (
        (None, {"fields": ("username", "name", "email")}),
        ("Account", {"fields": ("password_hash", "deleted_at")}),
        ("Record", {"fields": ("created_month", "created_at", "updated_at", "version")}),
    )
    # Other apps attach their own inlines (stats adds the learner's stats).
    inlines = (UserSkillInline,)


class SkillNameFilter(IndexFilter):
    title = "skill name"
    parameter_name = "skill_name"
    index_name = "gsi_skill_level"


@register(UserSkill)
class UserSkillAdmin(NotesAsTextArea, DynamoModelAdmin):
    list_display = ("username", "skill_id", "skill_name", "proficiency", "years", "updated_at")
    list_filter = ["skill_id", SkillNameFilter]
    search_fields = ("=username", "^skill_id")
    ordering = ("username", "-level", "skill_id")
    readonly_fields = ("skill_name", "category", "level", "listed_skill_name")
    autocomplete_fields = ("skill_id",)
