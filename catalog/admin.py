from django import forms
from django.contrib import messages

from dynamo_admin.decorators import register
from dynamo_admin.options import DynamoModelAdmin

from .models import CATEGORIES, SYNC, Skill


@register(Skill)
class SkillAdmin(DynamoModelAdmin):
    list_display = ("skill_id", "name", "category", "tags", "pending", "updated_at")
    list_filter = [("category", CATEGORIES)]
    search_fields = ("skill_id",)
    ordering = ("name",)
    readonly_fields = ("pending", "pending_since")
    fieldsets = (
        (None, {"fields": ("skill_id", "name", "category")}),
        ("Details", {"fields": ("description", "tags")}),
        ("Record", {"fields": ("created_at", "updated_at", "version")}),
        ("Pending work", {"fields": ("pending", "pending_since")}),
    )

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field is Skill.description:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 60})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def change_view(self, request, object_id: str, extra_context=None):
        response = super().change_view(request, object_id, extra_context)
        if request.method == "POST" and response.status_code == 302:
            self.say_what_is_pending(request, object_id)
        return response

    def say_what_is_pending(self, request, object_id: str) -> None:
        """After a rename, say how many holders' copies are left for the scheduled worker."""
        skill = self.get_object(request, object_id)
        if skill is None or skill.pending != SYNC:
            return
        holders = skill.holder_count()
        if holders:
            messages.info(
                request,
                f"{holders:,} holders' copies of “{skill.name}” are pending: they are rewritten "
                "outside this request within a minute or two (sync_user_skills --pending).",
            )
