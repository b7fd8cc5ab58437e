"""The JSON API: one NinjaAPI, its routers, its auth and its problem+json errors."""

from __future__ import annotations

from typing import Any

from ninja import NinjaAPI

from . import problems
from .auth import STAFF
from .renderers import TimestampRenderer
from .routers import learners, public, skills

DESCRIPTION = """\
Skillboard's catalog, learners, their skills and stats, the leaderboards and the talent
search, over the same models and rules as the admin and the pages.

* **Auth**: a staff member's session (unsafe methods also send `X-CSRFToken`), or
  `Authorization: Bearer <token>` (tokens from `manage.py create_api_token USERNAME` or the
  admin, where staff create tokens for themselves and a superuser for anyone). Each endpoint
  needs Django's permission for what it does (`catalog.view_skill`, `users.add_userskill`,
  …). The leaderboard and the search are public. Too many failed tokens from one address are
  a 429 with `Retry-After`.
* **Locking**: GET answers an `ETag`; PUT, PATCH and DELETE need `If-Match` with it (428
  without, 412 when someone changed the item since). Creating an existing key is a 409.
* **Times**: ISO 8601 to the second with the UTC offset (`2026-12-04T13:45:00+00:00`), as
  the pages' JSON writes them.
* **Paging**: lists answer `next` (a signed cursor; pass it back as `?cursor=`) and a
  `Link: <…>; rel="next"` header. No offsets, no counts.
* **Errors**: RFC 9457 problem details (`application/problem+json`); a 422 lists every bad
  field (text with a lone surrogate included); a body over 2.5 MB is a 413; an engine outage
  is a 503 with `Retry-After`.
"""


IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,  # documented as optional so its absence is answered (428), not refused
    "description": "The ETag of the item as you read it (or *): 428 without, 412 when stale.",
    "schema": {"type": "string"},
}
RESPONSE_HEADERS = {
    "ETag": {"description": "The item's version.", "schema": {"type": "string"}},
    "Link": {"description": 'The next page: <url>; rel="next".', "schema": {"type": "string"}},
}


class SkillboardAPI(NinjaAPI):
    """A NinjaAPI whose schema documents problem+json errors and the locking headers."""

    def get_openapi_schema(self, **kwargs: Any):
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                responses = operation.get("responses", {})
                if 428 in responses or "428" in responses:
                    operation.setdefault("parameters", []).append(IF_MATCH)
                for status, answer in responses.items():
                    content = answer.get("content", {})
                    if int(status) >= 400 and "application/json" in content:
                        content[problems.CONTENT_TYPE] = content.pop("application/json")
                    elif int(status) < 300:
                        answer["headers"] = RESPONSE_HEADERS
        return schema


api = SkillboardAPI(
    title="Skillboard API",
    version="1.0.0",
    description=DESCRIPTION,
    auth=STAFF,
    renderer=TimestampRenderer(),
    urls_namespace="api",
)
problems.install(api)
api.add_router("/skills", skills.router)
api.add_router("/learners", learners.router)
api.add_router("", public.router)
