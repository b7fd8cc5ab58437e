"""Request and response bodies. Types only: the rules live on the models (field_errors)."""

from __future__ import annotations

from datetime import datetime

from ninja import Field, Schema
from pydantic import ConfigDict

from catalog.models import CATEGORIES


class Input(Schema):
    """A request body: unknown fields are refused rather than silently dropped."""

    model_config = ConfigDict(extra="forbid")


# --- skills -----------------------------------------------------------------------------
CATEGORY_HELP = f"One of {', '.join(CATEGORIES)}."


class SkillFields(Input):
    name: str = Field(description="2 to 100 characters.", examples=["Python"])
    category: str = Field(description=CATEGORY_HELP, examples=["Programming"])
    description: str | None = Field(None, description="At most 2000 characters.")
    tags: list[str] = Field(default_factory=list, description="Each 1 to 50 characters.")


class SkillCreate(SkillFields):
    skill_id: str = Field(
        description="1 to 50 lowercase letters, digits and dashes.", examples=["aws-lambda"]
    )


class SkillPatch(Input):
    name: str | None = None
    category: str | None = None
    description: str | None = None
    tags: list[str] | None = None


class SkillOut(Schema):
    skill_id: str
    name: str
    category: str
    description: str | None = None
    tags: list[str]
    created_at: datetime | None = None
    updated_at: datetime | None = None
    version: int

    @staticmethod
    def resolve_tags(obj) -> list[str]:
        return sorted(obj.tags or ())


class SkillPage(Schema):
    results: list[SkillOut]
    next: str | None = Field(None, description="The cursor of the next page, if any.")
