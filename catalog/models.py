"""The master skills catalog."""

from __future__ import annotations

import re

from django.core.validators import RegexValidator
from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute

from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel
from dynamo.validators import FieldErrors, length_between, one_of

from .signals import skill_saved

CATEGORIES = (
    "Programming",
    "Cloud",
    "DevOps",
    "Database",
    "Frontend",
    "Backend",
    "Mobile",
    "Data",
    "Security",
    "Other",
)
SKILL_ID_RE = re.compile(r"[a-z0-9-]{1,50}")
validate_skill_id = RegexValidator(
    rf"\A{SKILL_ID_RE.pattern}\Z",
    "Use 1 to 50 lowercase letters, digits and dashes (like 'aws-lambda').",
)
validate_skill_name = length_between(2, 100)
validate_category = one_of(CATEGORIES)


class CategoryIndex(GlobalIndex):
    """Skills of one category, alphabetically."""

    class Meta:
        index_name = "gsi_category"
        projection = AllProjection()

    category = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute(range_key=True)


class Skill(DynamoModel):
    """A skill of the master catalog."""

    app_label = "catalog"
    verbose_name = "skill"

    class Meta(DynamoMeta):
        table_suffix = "skills"

    skill_id = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    category = UnicodeAttribute()
    tags = UnicodeSetAttribute(null=True)

    gsi_category = CategoryIndex()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("skill_id", self.skill_id):
            errors.check("skill_id", validate_skill_id, self.skill_id)
        if errors.require("name", self.name):
            errors.check("name", validate_skill_name, self.name)
        if errors.require("category", self.category):
            errors.check("category", validate_category, self.category)
        if self.description is not None and len(self.description) > 2000:
            errors.add("description", "Must be at most 2000 characters long.")
        for tag in self.tags or ():
            if not 1 <= len(tag) <= 50:
                errors.add("tags", f"Tag {tag!r} must be 1 to 50 characters long.")
        return errors

    def written(self, *, created: bool) -> None:
        """Let holders' copies follow the skill's name and category."""
        skill_saved.send(sender=type(self), skill=self, created=created)
