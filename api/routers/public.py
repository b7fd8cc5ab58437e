"""`/api/leaderboard/{metric}` and `/api/search`: as public as their pages, from the same code."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Query, Router
from ninja.errors import HttpError
from ninja.errors import ValidationError as RequestValidationError

from dynamo import cursors
from dynamo.models import utcnow
from stats.boards.cache import standings
from stats.boards.ranking import (
    MAX_PAGE_SIZE,
    PAGE_SIZE,
    BadLeaderboardRequest,
    check_metric,
)
from stats.learner_page.page import BadPageRequest, learner_page
from users.forms import TalentSearchForm
from users.models import PROFICIENCIES
from users.search import search as search_holders
from users.views import PAGE_SIZE as SEARCH_PAGE_SIZE
from users.views import names_of

from .. import paging
from ..problems import Problem
from ..schemas import BoardPage, Holder, HolderPage, LearnerPageOut

router = Router(tags=["public"], auth=None)
ERRORS = {400: Problem, 404: Problem, 422: Problem}
# A search page's holders are Queried and their names read by one BatchGetItem (0.5 RCU a
# learner), so the page size bounds what an anonymous search reads: under the 50 RCU ceiling
# that tests/test_anonymous_cost.py holds it to.
SEARCH_MAX_PAGE_SIZE = 50
HOLDER_FIELDS = [field for field in Holder.model_fields if field != "name"]


@router.get("/leaderboard/{metric}", response={200: BoardPage, **ERRORS})
def leaderboard(
    request: HttpRequest,
    response: HttpResponse,
    metric: str,
    cursor: str | None = None,
    user: str | None = Query(None, description="A learner: their rank and neighbours instead."),
    limit: int = Query(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """Return a page of the leaderboard by a metric, or one learner's rank and neighbours."""
    try:
        check_metric(metric)
    except BadLeaderboardRequest as exc:
        raise Http404(str(exc)) from exc
    try:
        data = standings(metric, cursor=cursor, user=user, limit=limit)
    except BadLeaderboardRequest as exc:
        raise HttpError(400, str(exc)) from exc
    if data is None:
        raise Http404(f"No learner called {user!r} is on the leaderboard.")
    paging.link_next(request, response, data["next"])
    return data


@router.get("/search", response={200: HolderPage, **ERRORS})
def search(
    request: HttpRequest,
    response: HttpResponse,
    skill: str = Query(
        ..., description="A catalog name, in any case, accents or none: Python, aws lambda, …"
    ),
    level: str | None = Query(None, description=f"Exactly this level: {', '.join(PROFICIENCIES)}."),
    min_level: str | None = Query(None, description="This level or better, best first."),
    min_years: int | None = Query(None, description="At least this many years (any level)."),
    cursor: str | None = None,
    limit: int = Query(SEARCH_PAGE_SIZE, ge=1, le=SEARCH_MAX_PAGE_SIZE),
):
    """Find holders of a skill, as the talent search page does (one Query per level)."""
    form = TalentSearchForm(
        {"skill": skill, "level": level or "", "min_level": min_level or "", "min_years": min_years}
    )
    if not form.is_valid():
        raise RequestValidationError(
            [
                {"loc": ("query", field), "msg": message}
                for field, messages in form.errors.items()
                for message in messages
            ]
        )
    try:
        page = search_holders(form.criteria(), limit=limit, cursor=cursor)
    except cursors.InvalidCursor as exc:
        raise HttpError(400, str(exc)) from exc
    paging.link_next(request, response, page.cursor)
    names = names_of(page.holders) if page.holders else {}
    results = [
        {field: getattr(holder, field) for field in HOLDER_FIELDS}
        | {"name": names.get(holder.username, "")}
        for holder in page.holders
    ]
    return {"results": results, "next": page.cursor or None}


@router.get("/learner-pages/{username}", response={200: LearnerPageOut, **ERRORS})
def learner(
    request: HttpRequest,
    response: HttpResponse,
    username: str,
    cursor: str | None = None,
    newer: str | None = None,
):
    """Return what a learner's page shows (`/learners/<username>/?format=json`), same data."""
    try:
        data = learner_page(username, cursor=cursor, newer=newer, today=utcnow().date())
    except BadPageRequest as exc:
        raise HttpError(400, str(exc)) from exc
    if data is None:  # unknown and soft-deleted alike
        raise Http404(f"No learner called {username!r}.")
    paging.link_next(request, response, data["next"])
    return data
