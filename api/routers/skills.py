"""`/api/skills`: the master catalog. Deleting a skill learners hold is refused (409)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Query, Router, Status
from ninja.errors import HttpError

from catalog.models import CATEGORIES, SKILL_ID_RE, Skill
from dynamo import cursors
from users.models import UserSkill

from .. import history, paging
from ..auth import require
from ..editing import edit, editing
from ..locking import tag
from ..problems import Problem
from ..schemas import SkillCreate, SkillFields, SkillOut, SkillPage, SkillPatch

router = Router(tags=["skills"])
PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
CATEGORY_CHOICES = ", ".join(CATEGORIES)
ERRORS = {400: Problem, 401: Problem, 403: Problem, 404: Problem, 422: Problem, 429: Problem}
WRITE_ERRORS = {**ERRORS, 409: Problem, 412: Problem, 413: Problem, 428: Problem}


def get_skill_or_404(skill_id: str) -> Skill:
    """Return the catalog skill, or raise a 404 (an id no skill can have is never looked up)."""
    skill = Skill.get_or_none(skill_id) if SKILL_ID_RE.fullmatch(skill_id) else None
    if skill is None:
        raise Http404(f"No catalog skill {skill_id!r}.")
    return skill


@router.get("", response={200: SkillPage, **ERRORS})
def list_skills(
    request: HttpRequest,
    response: HttpResponse,
    category: str | None = Query(None, description=f"Only this category: {CATEGORY_CHOICES}."),
    cursor: str | None = None,
    limit: int = Query(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """List the catalog by name, one category or all of them, through gsi_category."""
    require(request, "catalog.view_skill")
    if category is not None and category not in CATEGORIES:
        raise HttpError(400, f"Unknown category {category!r}: choose one of {CATEGORY_CHOICES}.")
    categories = [category] if category else list(CATEGORIES)
    scope = f"api-skills:{category or '*'}"
    try:
        positions = cursors.unsign(cursor, scope) if cursor else {}
    except cursors.InvalidCursor as exc:
        raise HttpError(400, str(exc)) from exc
    if not all(c in categories and (k is None or cursors.is_key(k)) for c, k in positions.items()):
        raise HttpError(400, "This page link is malformed.")
    skills, positions = _merged_page(categories, positions, limit)
    next_cursor = (
        cursors.sign(positions, scope)
        if skills and any(positions.get(c, "unread") is not None for c in categories)
        else None
    )
    paging.link_next(request, response, next_cursor)
    return {"results": skills, "next": next_cursor}


def _merged_page(categories: list[str], positions: dict, limit: int) -> tuple[list[Skill], dict]:
    """Return the next `limit` skills by name over the categories and where each now stands.

    One Query per category not read to its end (the leaderboard merges its shards the same
    way), so listing the whole catalog alphabetically needs no Scan.
    """
    index = Skill.gsi_category
    candidates: list[tuple[Skill, str]] = []
    exhausted: set[str] = set()
    for category in categories:
        if category in positions and positions[category] is None:
            continue  # read to its end on an earlier page
        items = list(
            index.query(
                category, limit=limit, page_size=limit, last_evaluated_key=positions.get(category)
            )
        )
        candidates += [(item, category) for item in items]
        if len(items) < limit:
            exhausted.add(category)
    # A stable sort: equal names within a category keep the index's own order.
    candidates.sort(key=lambda pair: (pair[0].name, pair[1]))
    taken, left = candidates[:limit], candidates[limit:]
    positions = dict(positions)
    for skill, category in taken:
        raw = skill.serialize()
        positions[category] = {name: raw[name] for name in index.cursor_key_names()}
    for category in exhausted - {category for _, category in left}:
        positions[category] = None
    return [skill for skill, _ in taken], positions


@router.post("", response={201: SkillOut, **WRITE_ERRORS})
def create_skill(request: HttpRequest, response: HttpResponse, payload: SkillCreate):
    """Add a skill to the catalog; 409 when its id is taken."""
    require(request, "catalog.add_skill")
    data = payload.model_dump()
    skill = Skill(data.pop("skill_id"), **{**data, "tags": set(data["tags"]) or None})
    history.write(request, skill, history.ADDITION)
    tag(response, skill)
    return Status(201, skill)


@router.get("/{skill_id}", response={200: SkillOut, **ERRORS})
def get_skill(request: HttpRequest, response: HttpResponse, skill_id: str):
    """Return one catalog skill with its ETag."""
    require(request, "catalog.view_skill")
    skill = get_skill_or_404(skill_id)
    tag(response, skill)
    return skill


def _update(request: HttpRequest, response: HttpResponse, skill_id: str, changes: dict) -> Skill:
    if "tags" in changes:
        changes["tags"] = set(changes["tags"] or ()) or None
    # Holders' copies follow through the pending marker clean() sets.
    return edit(
        request, response, "catalog.change_skill", get_skill_or_404, skill_id, changes=changes
    )


@router.put("/{skill_id}", response={200: SkillOut, **WRITE_ERRORS})
def replace_skill(
    request: HttpRequest, response: HttpResponse, skill_id: str, payload: SkillFields
):
    """Replace a skill's fields; holders' copies of its name and category follow."""
    return _update(request, response, skill_id, payload.model_dump())


@router.patch("/{skill_id}", response={200: SkillOut, **WRITE_ERRORS})
def update_skill(request: HttpRequest, response: HttpResponse, skill_id: str, payload: SkillPatch):
    """Change some of a skill's fields; holders' copies of its name and category follow."""
    return _update(request, response, skill_id, payload.model_dump(exclude_unset=True))


@router.delete("/{skill_id}", response={204: None, **WRITE_ERRORS})
def delete_skill(request: HttpRequest, skill_id: str):
    """Delete a skill no learner holds (one Query on gsi_skill_id finds a holder)."""
    with editing(request, "catalog.delete_skill", get_skill_or_404, skill_id) as skill:
        holder = next(iter(UserSkill.gsi_skill_id.query(skill_id, limit=1, page_size=1)), None)
        if holder is not None:
            raise HttpError(
                409,
                f"Learners hold {skill.name!r} (for one, {holder.username}): remove it from "
                "them before deleting it from the catalog.",
            )
        history.write(request, skill, history.DELETION)
    return Status(204, None)
