"""Request and response bodies. Types only: the rules live on the models (field_errors)."""

from __future__ import annotations

from datetime import datetime

from ninja import Field, Schema
from pydantic import ConfigDict, field_validator

from catalog.models import CATEGORIES
from dynamo.limits import LONE_SURROGATE_MESSAGE, has_lone_surrogate
from users.models import PROFICIENCIES


class Input(Schema):
    """A request body: unknown fields are refused rather than silently dropped."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def refuse_lone_surrogates(cls, value):
        # Text with no UTF-8 form: a field error here, before a password hasher or the
        # history's JSON chokes on it (fields such as a password never reach a model).
        if has_lone_surrogate(value):
            raise ValueError(LONE_SURROGATE_MESSAGE)
        return value


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


# --- learners ---------------------------------------------------------------------------
class LearnerFields(Input):
    name: str = Field(description="1 to 100 characters.", examples=["Ada Lovelace"])
    email: str = Field(examples=["ada@example.com"])


class LearnerCreate(LearnerFields):
    username: str = Field(
        description="3 to 30 letters, digits, '_', '-' or '.'; it never changes.",
        examples=["ada"],
    )
    password: str | None = Field(
        None, description="Stored as a Django password hash; omit for an unusable password."
    )


class LearnerPatch(Input):
    name: str | None = None
    email: str | None = None


class LearnerOut(Schema):
    username: str
    name: str
    email: str
    created_at: datetime | None = None
    updated_at: datetime | None = None
    deleted_at: datetime | None = Field(None, description="Set while soft-deleted.")
    version: int


# --- a learner's skills -----------------------------------------------------------------
PROFICIENCY_HELP = f"One of {', '.join(PROFICIENCIES)}."


class LearnerSkillFields(Input):
    proficiency: str = Field(description=PROFICIENCY_HELP, examples=["Advanced"])
    years: int = Field(0, description="Whole years, 0 to 60.")
    notes: str | None = Field(None, description="At most 2000 characters.")


class LearnerSkillCreate(LearnerSkillFields):
    skill_id: str = Field(description="A catalog skill's id.", examples=["python"])


class LearnerSkillPatch(Input):
    proficiency: str | None = None
    years: int | None = None
    notes: str | None = None


class LearnerSkillOut(Schema):
    username: str
    skill_id: str
    skill_name: str = Field(description="Copied from the catalog, kept in sync with it.")
    category: str = Field(description="Copied from the catalog, kept in sync with it.")
    proficiency: str
    years: int
    notes: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    version: int


class LearnerSkillPage(Schema):
    results: list[LearnerSkillOut]
    next: str | None = Field(None, description="The cursor of the next page, if any.")


# --- stats and sessions -----------------------------------------------------------------
class StatsOut(Schema):
    username: str
    xp: int
    streak: int
    efficiency: float = Field(description="Percent, 0 to 100.")
    accuracy: float = Field(description="Percent, 0 to 100.")
    sessions: int
    questions_answered: int
    questions_correct: int
    minutes_studied: float
    last_active_day: str | None = Field(None, description="YYYY-MM-DD, UTC.")
    next_reminder_at: datetime | None = None
    on_leaderboard: bool = Field(description="False while the learner is soft-deleted.")
    updated_at: datetime | None = None
    version: int

    @staticmethod
    def resolve_on_leaderboard(obj) -> bool:
        return obj.leaderboard_partition is not None


class SessionIn(Input):
    xp: int = Field(description="XP gained, 0 to 100000.")
    questions: int = Field(description="Questions answered, 0 to 10000.")
    correct: int = Field(description="Questions answered right; at most `questions`.")
    minutes: float = Field(description="Minutes studied, more than 0 and at most 1440.")
    when: datetime | None = Field(None, description="When it happened (default: now).")
    skill_id: str | None = Field(None, description="The catalog skill studied, if one.")
    session_id: str | None = Field(
        None,
        max_length=255,
        description="Your own id for the session: sent again, it records nothing more and "
        "answers what the first call answered, as an Idempotency-Key does.",
    )


class SessionOut(Schema):
    session_id: str = Field(description="The start time (UTC) and a random suffix: sorts by time.")
    started_at: datetime
    xp: int
    questions: int = Field(description="Questions answered.")
    correct: int = Field(description="Questions answered right.")
    minutes: float
    skill_id: str | None = Field(None, description="The catalog skill studied, if one.")
    source: str = Field(description="Where it was recorded: admin, api or seed.")

    @staticmethod
    def resolve_questions(obj) -> int:
        return obj.questions_answered

    @staticmethod
    def resolve_correct(obj) -> int:
        return obj.questions_correct


class SessionCreated(SessionOut):
    stats: StatsOut = Field(description="The learner's totals with the session added.")


class SessionPage(Schema):
    results: list[SessionOut]
    next: str | None = Field(None, description="The cursor of the next (older) page, if any.")


class LearnerPage(Schema):
    results: list[LearnerOut]
    next: str | None = Field(None, description="The cursor of the next (older) page, if any.")


# --- a learner's public page (/learners/<username>/?format=json) --------------------------
class RankOut(Schema):
    rank: int = Field(description="Equal scores share a rank (1, 2, 2, 4).")
    exact: bool = Field(description="False when the rank is an estimate.")
    label: str = Field(examples=["#12"])
    lag: str = Field(
        "", description="With an estimate: how far behind its counts are (`counts 12 s behind`)."
    )


class MetricOut(Schema):
    value: float
    rank: RankOut | None = Field(None, description="None while the learner is not listed.")


class PageSkill(Schema):
    skill_id: str
    skill_name: str
    category: str
    proficiency: str
    years: int
    search_url: str = Field(description="The talent search for this skill at this level.")


class PageSession(Schema):
    session_id: str
    started_at: str = Field(description="ISO-8601, UTC.")
    xp: int
    questions: int
    correct: int
    minutes: float
    skill_id: str | None = None
    skill_name: str | None = Field(None, description="The catalog's name of the skill.")
    skill_search_url: str | None = Field(None, description="The talent search for it.")


class PageDay(Schema):
    day: str = Field(description="YYYY-MM-DD, UTC.")
    xp: float
    sessions: int
    minutes: float


class PageCalendar(Schema):
    first_day: str = Field(description="A Sunday, 52 weeks before this week's.")
    last_day: str = Field(description="Today (UTC).")
    days: list[PageDay] = Field(description="Only the days with a session, oldest first.")


class PageMetrics(Schema):
    xp: MetricOut
    streak: MetricOut
    efficiency: MetricOut
    accuracy: MetricOut


class LearnerPageOut(Schema):
    username: str
    name: str
    joined: str | None = Field(None, description="YYYY-MM-DD.")
    skills: list[PageSkill] = Field(description="In the order the learner added them.")
    metrics: PageMetrics
    sessions_recorded: int
    last_active_day: str | None = None
    sessions: list[PageSession] = Field(description="Newest first.")
    next: str | None = Field(None, description="The cursor of older sessions, if any.")
    newer: str | None = Field(
        None, description="Pass as `newer` for the newer sessions (none on the newest page)."
    )
    calendar: PageCalendar


# --- the public leaderboard and search ---------------------------------------------------
class BoardRow(Schema):
    rank: int = Field(description="Equal scores share a rank (1, 2, 2, 4).")
    username: str
    name: str
    xp: int
    streak: int
    efficiency: float
    accuracy: float


class BoardPage(Schema):
    metric: str
    results: list[BoardRow]
    next: str | None = Field(None, description="The cursor of the next page, if any.")
    user: str | None = Field(None, description="With ?user=: whose rank this is.")
    user_rank: int | None = None
    user_rank_exact: bool | None = Field(
        None, description="With ?user=: False where the rank comes from tiers that may lag."
    )
    user_rank_label: str | None = Field(
        None, description='With ?user=: the rank as shown: "1,234", "≈1,234", or "301+".'
    )
    ranks_exact: bool = Field(True, description="False where the page's ranks are approximate.")


class Holder(Schema):
    username: str
    name: str = Field("", description="The learner's name, as the search page shows it.")
    skill_id: str
    skill_name: str
    category: str
    proficiency: str
    years: int


class HolderPage(Schema):
    results: list[Holder]
    next: str | None = Field(None, description="The cursor of the next page, if any.")
