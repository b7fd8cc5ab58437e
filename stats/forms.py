"""The one form to record a study session for one learner (the admin's action uses it)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from dynamo.models import utcnow

from .history.models import MAX_REASON_LENGTH
from .history.recording import (
    MAX_MINUTES_PER_SESSION,
    MAX_QUESTIONS_PER_SESSION,
    MAX_XP_PER_SESSION,
    record_session,
    session_date_error,
)
from .models import UserStats


class StudySessionForm(forms.Form):
    """XP gained, questions answered and answered right, minutes spent, and when (optional)."""

    xp = forms.IntegerField(label="XP gained", min_value=0, max_value=MAX_XP_PER_SESSION)
    questions = forms.IntegerField(
        label="Questions answered", min_value=0, max_value=MAX_QUESTIONS_PER_SESSION
    )
    correct = forms.IntegerField(
        label="Answered right", min_value=0, max_value=MAX_QUESTIONS_PER_SESSION
    )
    minutes = forms.FloatField(
        label="Minutes spent", min_value=0.01, max_value=MAX_MINUTES_PER_SESSION
    )
    when = forms.DateTimeField(
        label="When (UTC)",
        required=False,
        help_text="Leave empty for now; at most a year back.",
    )

    def clean_when(self):
        when = self.cleaned_data.get("when")
        if when is not None and (message := session_date_error(when, utcnow())):
            raise ValidationError(message)
        return when

    def clean(self):
        data = super().clean()
        if (data.get("correct") or 0) > (data.get("questions") or 0):
            self.add_error("correct", "Cannot exceed the questions answered.")
        return data

    def save(self, username: str, actor: str | None = None) -> UserStats:
        """Record the session for `username`; errors land on the form's fields."""
        try:
            return record_session(username, **self.cleaned_data, source="admin", actor=actor)
        except ValidationError as exc:
            self.show_errors(exc)
            raise

    def show_errors(self, exc: ValidationError) -> None:
        """Put a refusal of record_session on the fields it names (the rest above them)."""
        for field, messages in exc.message_dict.items():
            self.add_error(field if field in self.fields else None, messages)


class CorrectionForm(forms.Form):
    """An XP correction: how much to add (negative to take away) and why."""

    xp = forms.IntegerField(
        label="XP to add",
        min_value=-MAX_XP_PER_SESSION,
        max_value=MAX_XP_PER_SESSION,
        help_text="Negative to take XP away. Recorded in the study history with the reason.",
    )
    reason = forms.CharField(max_length=MAX_REASON_LENGTH, widget=forms.Textarea(attrs={"rows": 3}))

    def clean_xp(self):
        xp = self.cleaned_data["xp"]
        if xp == 0:
            raise ValidationError("A correction of 0 XP changes nothing.")
        return xp
