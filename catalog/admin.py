from django import forms

from dynamo_admin.decorators import register
from dynamo_admin.options import DynamoModelAdmin

from .models import CATEGORIES, Skill


@register(Skill)
class SkillAdmin(DynamoModelAdmin):
    list_display = ("skill_id", "name", "category", "tags", "updated_at")
    list_filter = [("category", CATEGORIES)]
    search_fields = ("skill_id",)
    ordering = ("name",)
    fieldsets = (
        (None, {"fields": ("skill_id", "name", "category")}),
        ("Details", {"fields": ("description", "tags")}),
        ("Record", {"fields": ("created_at", "updated_at", "version")}),
    )

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field is Skill.description:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 60})
        return super().formfield_for_dbfield(db_field, request, **kwargs)
