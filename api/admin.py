"""Staff access on Django's admin: API tokens (add one, its secret shown once; list; revoke)
and groups, whose permissions refuse an id no database row can have as a form error.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.models import Group
from django.db import connections, router
from django.utils import timezone

from .models import ApiToken

OWNER_REFUSED = (
    "You may create a token only for yourself: a token acts with its owner's permissions, "
    "and only a superuser may create one for another active staff member."
)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "name", "user", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("prefix", "name", "user__username")
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke",)

    def get_readonly_fields(self, request, obj=None):
        # A token's owner is fixed once it exists; only its label can change.
        return (*self.readonly_fields, "user") if obj is not None else self.readonly_fields

    def get_changeform_initial_data(self, request):
        # Most tokens are for oneself: the owner starts as the staff member adding it.
        return {"user": request.user.pk, **super().get_changeform_initial_data(request)}

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "user":
            # A forged POST naming another owner fails the field's choices, as a form error.
            kwargs["queryset"] = ApiToken.owners_for(request.user)
            kwargs["error_messages"] = {"invalid_choice": OWNER_REFUSED}
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        secret = obj.set_secret()
        super().save_model(request, obj, form, change)
        messages.warning(
            request,
            f"The token for {obj.user} is {secret} — copy it now: it is not stored and "
            "will not be shown again.",
        )

    @admin.action(description="Revoke selected API tokens", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {revoked} token{'s' if revoked != 1 else ''}.")


class ChoicesByKey(forms.ModelMultipleChoiceField):
    """Django's field, refusing a key outside its column's integer range as an unknown choice.

    Django checks each chosen key by a query; a key the database cannot hold as an integer
    (99999999999999999999) raised OverflowError there: a 500 instead of the form's error.
    """

    def _check_values(self, value):
        field = self.queryset.model._meta.pk
        database = connections[router.db_for_read(self.queryset.model)]
        low, high = database.ops.integer_field_range(field.get_internal_type())
        for key in value if isinstance(value, (list, tuple)) else []:
            try:
                number = int(str(key).strip())
            except ValueError:
                continue  # Django's own check names it
            if not low <= number <= high:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": key},
                )
        return super()._check_values(value)


admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    def formfield_for_manytomany(self, db_field, request=None, **kwargs):
        if db_field.name == "permissions":
            kwargs["form_class"] = ChoicesByKey
        return super().formfield_for_manytomany(db_field, request=request, **kwargs)
