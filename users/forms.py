"""The talent search form."""

from __future__ import annotations

from django import forms

from .models import PROFICIENCIES


class TalentSearchForm(forms.Form):
    """Skill name, level and minimum years: what one Query on gsi_skill_level can answer."""

    skill = forms.CharField(
        label="Skill",
        min_length=2,
        max_length=100,
        help_text="The catalog name, exactly as written: Python, AWS Lambda, React…",
    )
    level = forms.ChoiceField(
        label="Level",
        choices=[("", "Any level"), *((p, p) for p in PROFICIENCIES)],
        required=False,
    )
    min_years = forms.IntegerField(
        label="Min. years",
        min_value=0,
        max_value=60,
        required=False,
        error_messages={"invalid": "Enter a whole number of years."},
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("min_years") is not None and not cleaned.get("level"):
            self.add_error("min_years", "Choose a level too: years are searched within a level.")
        return cleaned

    def scope(self) -> str:
        """Return the cursor scope of this search, so a page link fits only the same search."""
        data = self.cleaned_data
        return f"talent-search:{data['skill']}|{data['level']}|{data['min_years']}"
