"""The catalog's skills in the admin, with their holders: a rename says what it left pending,
a delete counts the learners holding the skill and removes their user-skills with it.

The users app owns this page because the holders are its own (catalog knows nothing of
them); sync_user_skills --pending finishes what a rename or a removal left.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError

from catalog.models import CATEGORIES, SKILL_ID_RE, SYNC, Skill
from dynamo_admin.decorators import register
from dynamo_admin.keys import object_id
from dynamo_admin.options import DynamoModelAdmin

from .models import UserSkill

# Removing a held skill removes its holders' user-skills: that takes this permission too.
REMOVE_HOLDERS_PERMISSION = "users.delete_userskill"
COUNT_SECONDS = 1.0  # time a rename's save may spend counting the copies it left pending


@register(Skill)
class SkillAdmin(DynamoModelAdmin):
    list_display = ("skill_id", "name", "category", "tags", "pending", "updated_at")
    list_filter = [("category", CATEGORIES)]
    search_fields = ("skill_id",)
    ordering = ("name",)
    readonly_fields = ("pending", "pending_since", "former_names")
    fieldsets = (
        (None, {"fields": ("skill_id", "name", "category")}),
        ("Details", {"fields": ("description", "tags", "former_names")}),
        ("Record", {"fields": ("created_at", "updated_at", "version")}),
        ("Pending work", {"fields": ("pending", "pending_since")}),
    )

    def get_autocomplete_results(self, request, term: str) -> list[Skill]:
        """Return the skill with this id and those whose name starts with the term, by name.

        Names are capitalised in the catalog ("Python"), so "py" also looks for "Py".
        """
        found = {}
        if SKILL_ID_RE.fullmatch(term.lower()):
            skill = Skill.get_or_none(term.lower())
            if skill is not None:
                found[skill.skill_id] = skill
        for prefix in dict.fromkeys([term, term[:1].upper() + term[1:]]):
            found.update((skill.skill_id, skill) for skill in Skill.named_starting(prefix))
        return sorted(found.values(), key=lambda skill: skill.name)

    def autocomplete_label(self, item: Skill) -> str:
        return f"{item.name} ({item.skill_id})"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field is Skill.description:
            kwargs["widget"] = forms.Textarea(attrs={"rows": 3, "cols": 60})
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def response_change(self, request, obj: Skill):
        """Redirect after a saved change, first saying what a rename left pending."""
        self.say_what_is_pending(request, object_id(obj))
        return super().response_change(request, obj)

    def say_what_is_pending(self, request, object_id: str) -> None:
        """After a rename, say how many holders' copies are left for the scheduled worker."""
        skill = self.get_object(request, object_id)
        if skill is None or skill.pending != SYNC:
            return
        # Counting a popular skill's holders is a long Query: the message waits COUNT_SECONDS.
        holders, complete = UserSkill.holders_count(skill.skill_id, within=COUNT_SECONDS)
        if holders:
            messages.info(
                request,
                f"{holders:,}{'' if complete else '+'} holders' copies of “{skill.name}” are "
                "pending: they are rewritten "
                "outside this request within a minute or two (sync_user_skills --pending).",
            )

    def render_delete_form(self, request, context):
        """Show the confirmation with how many user-skills would go with the skill."""
        # A COUNT Query on gsi_skill_id, only when the page is shown (not on a successful POST).
        context["holders"] = UserSkill.holders_count(context["object"].skill_id)[0]
        context["may_remove_holders"] = request.user.has_perm(REMOVE_HOLDERS_PERMISSION)
        return super().render_delete_form(request, context)

    def delete_model(self, request, obj: Skill) -> None:
        """Delete an unheld skill; mark a held one for removal with its holders' user-skills."""
        holders = UserSkill.holders_count(obj.skill_id)[
            0
        ]  # counted when deleting: the page's count may be old
        if not holders:
            return super().delete_model(request, obj)
        if not request.user.has_perm(REMOVE_HOLDERS_PERMISSION):
            raise ValidationError(
                f"{holders} learners hold “{obj.name}”, and your account may not delete user "
                "skills: nothing was deleted."
            )
        if request.POST.get("remove_holders") != "yes":
            raise ValidationError(
                f"{holders} learners hold “{obj.name}”: confirm removing their user skills "
                "too, or keep the skill."
            )
        obj.request_removal()  # on the version the page showed; StaleVersion otherwise
        self.message_user(
            request,
            f"“{obj.name}” and its {holders} holders' user skills are being removed outside "
            "this request (sync_user_skills --pending, within a minute or two).",
            messages.INFO,
        )
        return None
