"""Talent search: listed holders of a skill, best first, one Query per level on a page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from catalog.choices import near_names, skill_names
from dynamo import cursors

from .forms import TalentSearchForm
from .models import User, UserSkill
from .search import search

PAGE_SIZE = 25
TEMPLATE = "users/search.html"


def talent_search(request: HttpRequest) -> HttpResponse:
    """Show the search form and, for a valid search, one page of matching holders."""
    form = TalentSearchForm(request.GET or None)
    context = {
        "form": form,
        "holders": None,
        "page_size": PAGE_SIZE,
        "skill_names": skill_names(),
    }
    if not form.is_bound:
        return render(request, TEMPLATE, context)
    if not form.is_valid():
        return render(request, TEMPLATE, context, status=400)
    cursor = request.GET.get("cursor")
    try:
        page = search(form.criteria(), limit=PAGE_SIZE, cursor=cursor)
    except cursors.InvalidCursor as exc:
        return render(request, TEMPLATE, {**context, "error": str(exc)}, status=400)
    names = names_of(page.holders) if page.holders else {}
    if form.in_catalog is None:
        context["suggestions"] = [
            (name, _page_url(request, None, skill=name)) for name in near_names(form.data["skill"])
        ]
    context.update(
        holders=page.holders,
        rows=[(holder, names.get(holder.username, "")) for holder in page.holders],
        is_first_page=not cursor,
        first_url=_page_url(request, None),
        next_url=_page_url(request, page.cursor) if page.cursor else "",
    )
    return render(request, TEMPLATE, context)


def names_of(holders: list[UserSkill]) -> dict[str, str]:
    """Return the holders' names: one BatchGetItem for the page (none when it is empty)."""
    usernames = list(dict.fromkeys(holder.username for holder in holders))
    return {learner.username: learner.name for learner in User.batch_get(usernames)}


def _page_url(request: HttpRequest, cursor: str | None, *, skill: str | None = None) -> str:
    params = request.GET.copy()
    params.pop("cursor", None)
    if cursor:
        params["cursor"] = cursor
    if skill:
        params["skill"] = skill
    return f"?{params.urlencode()}"
