"""The talent search form: the page and `/api/search` validate through it alike."""

from __future__ import annotations

from django import forms

from catalog.choices import catalog_name

from .models import PROFICIENCIES
from .search import TalentSearch


class AnyCaseChoiceField(forms.ChoiceField):
    """A choice typed in any case (`expert`, `EXPERT`) taken as the choice's own spelling."""

    def to_python(self, value):
        value = super().to_python(value)
        spelled = {str(key).casefold(): str(key) for key, _label in self.choices}
        return spelled.get(value.casefold(), value)


class TalentSearchForm(forms.Form):
    """Skill name, a level or a minimum level, and minimum years: what gsi_skill_level answers."""

    skill = forms.CharField(
        label="Skill",
        min_length=2,
        max_length=100,
        help_text="Choose from the catalog's skills as you type: Python, AWS Lambda, React…",
        widget=forms.TextInput(attrs={"list": "catalog-skills", "autocomplete": "off"}),
    )
    level = AnyCaseChoiceField(
        label="Level",
        choices=[("", "Any level"), *((p, p) for p in PROFICIENCIES)],
        required=False,
    )
    min_level = AnyCaseChoiceField(
        label="Or at least",
        choices=[("", "—"), *((p, f"{p} or better") for p in PROFICIENCIES)],
        required=False,
    )
    min_years = forms.IntegerField(
        label="Min. years",
        min_value=0,
        max_value=60,
        required=False,
        error_messages={"invalid": "Enter a whole number of years."},
    )

    def clean_skill(self) -> str:
        """Take the catalog's spelling of the skill, whatever the case, accents or spaces."""
        typed = self.cleaned_data["skill"]
        self.in_catalog = catalog_name(typed)
        return self.in_catalog or typed.strip()

    # The catalog's name the skill resolved to, or None (a name the catalog lacks).
    in_catalog: str | None = None

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("level") and cleaned.get("min_level"):
            self.add_error("min_level", "Choose an exact level or a minimum level, not both.")
        return cleaned

    def criteria(self) -> TalentSearch:
        """Return the search the valid form describes."""
        data = self.cleaned_data
        return TalentSearch(
            data["skill"],
            level=data["level"] or None,
            min_level=data["min_level"] or None,
            min_years=data["min_years"],
        )
