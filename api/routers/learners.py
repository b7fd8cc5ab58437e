"""`/api/learners`: profiles (soft delete and restore), their skills, stats and sessions."""

from __future__ import annotations

import json
import re

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from ninja import Header, Query, Router, Status
from ninja.errors import HttpError

from catalog.models import SKILL_ID_RE
from dynamo.exceptions import AlreadyExists
from dynamo.models import utcnow
from stats.history.models import MAX_KEY_LENGTH, SessionKey, StudySession
from stats.history.recording import record_session
from stats.models import UserStats
from users.models import USERNAME_RE, User, UserSkill

from .. import history, paging
from ..auth import require
from ..editing import edit, editing
from ..locking import etag_of, tag
from ..problems import Problem
from ..renderers import TimestampEncoder
from ..schemas import (
    LearnerCreate,
    LearnerFields,
    LearnerOut,
    LearnerPage,
    LearnerPatch,
    LearnerSkillCreate,
    LearnerSkillFields,
    LearnerSkillOut,
    LearnerSkillPage,
    LearnerSkillPatch,
    SessionCreated,
    SessionIn,
    SessionOut,
    SessionPage,
    StatsOut,
)

router = Router(tags=["learners"])
MONTH_RE = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
EMPTY_MONTHS_TO_END = 12
PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
ERRORS = {400: Problem, 401: Problem, 403: Problem, 404: Problem, 422: Problem, 429: Problem}
WRITE_ERRORS = {**ERRORS, 409: Problem, 412: Problem, 413: Problem, 428: Problem}


def get_learner_or_404(username: str) -> User:
    """Return the learner, or raise a 404 (a name no learner can have is never looked up)."""
    learner = User.get_or_none(username) if USERNAME_RE.fullmatch(username) else None
    if learner is None:
        raise Http404(f"No learner called {username!r}.")
    return learner


def get_active_learner_or_404(username: str) -> User:
    """Return a learner who is not soft-deleted; a deleted one is a 409 until restored."""
    learner = get_learner_or_404(username)
    if learner.is_deleted:
        raise HttpError(409, f"{username} is soft-deleted: restore them first.")
    return learner


def get_learner_skill_or_404(username: str, skill_id: str) -> UserSkill:
    held = None
    if USERNAME_RE.fullmatch(username) and SKILL_ID_RE.fullmatch(skill_id):
        held = UserSkill.get_or_none(username, skill_id)
    if held is None:
        raise Http404(f"{username} holds no skill {skill_id!r}.")
    return held


# --- learners -----------------------------------------------------------------------------
@router.post("", response={201: LearnerOut, **WRITE_ERRORS})
def create_learner(request: HttpRequest, response: HttpResponse, payload: LearnerCreate):
    """Add a learner; 409 when the username is taken."""
    require(request, "users.add_user")
    data = payload.model_dump()
    password = data.pop("password")
    learner = User(data.pop("username"), **data)
    learner.set_password(password)
    history.write(request, learner, history.ADDITION)
    tag(response, learner)
    return Status(201, learner)


@router.get("", response={200: LearnerPage, **ERRORS})
def list_learners(
    request: HttpRequest,
    response: HttpResponse,
    cursor: str | None = None,
    limit: int = Query(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """List learners, newest sign-up first: gsi_created_month, one month after another.

    The listing walks back from this month; it ends after twelve empty months in a row.
    """
    require(request, "users.view_user")
    state = paging.state_of(cursor, "api-learners") or {}
    month, key = state.get("m") or utcnow().strftime("%Y-%m"), state.get("k")
    empty = state.get("e", 0)
    if not (isinstance(month, str) and MONTH_RE.fullmatch(month) and isinstance(empty, int)):
        raise HttpError(400, "This page link is malformed.")
    found: list[User] = []
    while len(found) < limit and empty < EMPTY_MONTHS_TO_END:
        page = User.gsi_created_month.query(
            month,
            scan_index_forward=False,
            limit=limit - len(found),
            last_evaluated_key=key,
        )
        got = list(page)
        found += got
        empty = 0 if got else empty + 1
        key = page.last_evaluated_key
        if key:
            break  # the page is full, or DynamoDB's 1 MB page ended: go on in this month
        month = previous_month(month)
    next_cursor = None
    if empty < EMPTY_MONTHS_TO_END:
        next_cursor = paging.state_cursor({"m": month, "k": key, "e": empty}, "api-learners")
    paging.link_next(request, response, next_cursor)
    return {"results": found, "next": next_cursor}


def previous_month(month: str) -> str:
    """Return the month before a `YYYY-MM` month."""
    year, number = int(month[:4]), int(month[5:])
    return f"{year - 1}-12" if number == 1 else f"{year}-{number - 1:02d}"


@router.get("/{username}", response={200: LearnerOut, **ERRORS})
def get_learner(request: HttpRequest, response: HttpResponse, username: str):
    """Return a learner (soft-deleted ones too, with `deleted_at`) and their ETag."""
    require(request, "users.view_user")
    learner = get_learner_or_404(username)
    tag(response, learner)
    return learner


def _update_learner(request: HttpRequest, response: HttpResponse, username: str, changes: dict):
    # written(): boards follow a rename.
    return edit(
        request, response, "users.change_user", get_learner_or_404, username, changes=changes
    )


@router.put("/{username}", response={200: LearnerOut, **WRITE_ERRORS})
def replace_learner(
    request: HttpRequest, response: HttpResponse, username: str, payload: LearnerFields
):
    """Replace a learner's name and email (the username never changes)."""
    return _update_learner(request, response, username, payload.model_dump())


@router.patch("/{username}", response={200: LearnerOut, **WRITE_ERRORS})
def update_learner(
    request: HttpRequest, response: HttpResponse, username: str, payload: LearnerPatch
):
    """Change a learner's name or email."""
    return _update_learner(request, response, username, payload.model_dump(exclude_unset=True))


@router.delete("/{username}", response={200: LearnerOut, **WRITE_ERRORS})
def delete_learner(request: HttpRequest, response: HttpResponse, username: str):
    """Soft-delete a learner: off the boards and the search; purged after the retention."""
    with editing(
        request, "users.delete_user", get_learner_or_404, username, response=response
    ) as learner:
        if learner.is_deleted:
            raise HttpError(409, f"{username} is soft-deleted already.")
        history.change(request, learner, {"deleted_at": utcnow()})  # written(): off the boards
    return learner


@router.post("/{username}/restore", response={200: LearnerOut, **WRITE_ERRORS})
def restore_learner(request: HttpRequest, response: HttpResponse, username: str):
    """Undo a soft delete (refused once the gardener has started purging the learner)."""
    with editing(
        request, "users.change_user", get_learner_or_404, username, response=response
    ) as learner:
        if not learner.is_deleted:
            raise HttpError(409, f"{username} is not soft-deleted.")
        history.change(request, learner, {"deleted_at": None})  # written(): back on the boards
    return learner


# --- a learner's skills ---------------------------------------------------------------------
@router.get("/{username}/skills", response={200: LearnerSkillPage, **ERRORS})
def list_learner_skills(
    request: HttpRequest,
    response: HttpResponse,
    username: str,
    newest_first: bool = Query(False, description="Newest first instead of oldest first."),
    cursor: str | None = None,
    limit: int = Query(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """List a learner's skills in the order they were added (one Query on gsi_user_created_at)."""
    require(request, "users.view_userskill")
    get_learner_or_404(username)
    scope = f"api-learner-skills:{username}:{int(newest_first)}"
    start = paging.start_of(cursor, scope)
    results = UserSkill.gsi_user_created_at.query(
        username,
        scan_index_forward=not newest_first,
        limit=limit,
        page_size=limit,
        last_evaluated_key=start,
    )
    held = list(results)
    next_cursor = paging.cursor_after(results, scope)
    paging.link_next(request, response, next_cursor)
    return {"results": held, "next": next_cursor}


@router.post("/{username}/skills", response={201: LearnerSkillOut, **WRITE_ERRORS})
def add_learner_skill(
    request: HttpRequest, response: HttpResponse, username: str, payload: LearnerSkillCreate
):
    """Add a catalog skill to a learner; its name and category are copied from the catalog."""
    require(request, "users.add_userskill")
    get_active_learner_or_404(username)
    data = payload.model_dump()
    held = UserSkill(username, data.pop("skill_id"), **data)
    # clean() copies the catalog's name and category, or names a missing skill.
    history.write(request, held, history.ADDITION)
    tag(response, held)
    return Status(201, held)


@router.get("/{username}/skills/{skill_id}", response={200: LearnerSkillOut, **ERRORS})
def get_learner_skill(request: HttpRequest, response: HttpResponse, username: str, skill_id: str):
    """Return one of a learner's skills and its ETag."""
    require(request, "users.view_userskill")
    held = get_learner_skill_or_404(username, skill_id)
    tag(response, held)
    return held


def _update_learner_skill(
    request: HttpRequest, response: HttpResponse, username: str, skill_id: str, changes: dict
):
    read = get_learner_skill_or_404
    return edit(
        request, response, "users.change_userskill", read, username, skill_id, changes=changes
    )


@router.put("/{username}/skills/{skill_id}", response={200: LearnerSkillOut, **WRITE_ERRORS})
def replace_learner_skill(
    request: HttpRequest,
    response: HttpResponse,
    username: str,
    skill_id: str,
    payload: LearnerSkillFields,
):
    """Replace a learner's proficiency, years and notes for a skill."""
    return _update_learner_skill(request, response, username, skill_id, payload.model_dump())


@router.patch("/{username}/skills/{skill_id}", response={200: LearnerSkillOut, **WRITE_ERRORS})
def update_learner_skill(
    request: HttpRequest,
    response: HttpResponse,
    username: str,
    skill_id: str,
    payload: LearnerSkillPatch,
):
    """Change a learner's proficiency, years or notes for a skill."""
    changes = payload.model_dump(exclude_unset=True)
    return _update_learner_skill(request, response, username, skill_id, changes)


@router.delete("/{username}/skills/{skill_id}", response={204: None, **WRITE_ERRORS})
def remove_learner_skill(request: HttpRequest, username: str, skill_id: str):
    """Remove a skill from a learner."""
    with editing(
        request, "users.delete_userskill", get_learner_skill_or_404, username, skill_id
    ) as held:
        history.write(request, held, history.DELETION)
    return Status(204, None)


# --- stats and study sessions -----------------------------------------------------------------
@router.get("/{username}/stats", response={200: StatsOut, **ERRORS})
def get_learner_stats(request: HttpRequest, response: HttpResponse, username: str):
    """Return a learner's statistics and their ETag."""
    require(request, "stats.view_userstats")
    stats = UserStats.get_or_none(username) if USERNAME_RE.fullmatch(username) else None
    if stats is None:
        raise Http404(f"No stats for {username!r}: they have recorded no session yet.")
    tag(response, stats)
    return stats


@router.get("/{username}/sessions", response={200: SessionPage, **ERRORS})
def list_learner_sessions(
    request: HttpRequest,
    response: HttpResponse,
    username: str,
    cursor: str | None = None,
    limit: int = Query(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """List a learner's study sessions, newest first (one Query on study-sessions)."""
    require(request, "stats.view_userstats")
    get_learner_or_404(username)
    scope = f"api-learner-sessions:{username}"
    results = StudySession.newest_first(
        username, limit=limit, last_evaluated_key=paging.start_of(cursor, scope)
    )
    sessions = list(results)
    next_cursor = paging.cursor_after(results, scope)
    paging.link_next(request, response, next_cursor)
    return {"results": sessions, "next": next_cursor}


@router.get(
    "/{username}/sessions/{session_id}",
    response={200: SessionOut, **ERRORS},
    url_name="learner_session",
)
def get_learner_session(request: HttpRequest, username: str, session_id: str):
    """Return one of a learner's study sessions (where a recorded session's Location points)."""
    require(request, "stats.view_userstats")
    get_learner_or_404(username)
    found = StudySession.get_or_none(username, session_id) if len(session_id) <= 255 else None
    if found is None:
        raise Http404(f"{username!r} has no session {session_id!r}.")
    return found


def session_location(session: StudySession) -> str:
    """Return the URL of a recorded session."""
    return reverse(
        "api:learner_session",
        kwargs={"username": session.username, "session_id": session.session_id},
    )


def created(stats: UserStats, session: StudySession) -> dict:
    """Return the answer to a recorded session: the session, its totals beside it, as JSON."""
    body = SessionOut.from_orm(session).model_dump()
    body["stats"] = StatsOut.from_orm(stats).model_dump()
    # Encoded as the API encodes answers, so a replay is the same JSON, byte for byte.
    return json.loads(json.dumps(body, cls=TimestampEncoder))


def created_response(stats: UserStats, session: StudySession) -> HttpResponse:
    """Return the 201 of a recorded session: the body a replay gives, its ETag and Location."""
    answer = JsonResponse(created(stats, session), status=201)
    answer["ETag"] = etag_of(stats)
    answer["Location"] = session_location(session)
    return answer


@router.post("/{username}/sessions", response={201: SessionCreated, **WRITE_ERRORS})
def record_learner_session(
    request: HttpRequest,
    username: str,
    payload: SessionIn,
    idempotency_key: str | None = Header(
        None,
        alias="Idempotency-Key",
        description="Name the session: sent again, the same key records nothing more and "
        "answers what the first call answered; the same key with another body is a 422.",
        max_length=MAX_KEY_LENGTH,
    ),
):
    """Record a study session with its history entry; answer it, its totals and its Location."""
    require(request, "stats.change_userstats")
    get_active_learner_or_404(username)
    session = payload.model_dump()
    # A client's own id for the session names it as an Idempotency-Key does.
    client_id = session.pop("session_id")
    recorded: list[StudySession] = []

    def kept(_stats: UserStats, new: StudySession) -> list:
        recorded.append(new)
        return []

    if idempotency_key is None and client_id is None:
        stats = record_session(
            username, **session, source="api", actor=history.actor(request), also=kept
        )
        return created_response(stats, recorded[0])
    # Scoped to the caller (the token's owner) and the learner: two clients that happen to
    # send the same key for one learner record two sessions, and never see each other's.
    named_by = f"key:{idempotency_key}" if idempotency_key is not None else f"id:{client_id}"
    key = SessionKey.digest(f"owner:{request.user.pk}|{named_by}")
    fingerprint = SessionKey.digest(payload.model_dump_json())
    if (answer := replayed(username, key, fingerprint)) is not None:
        return answer

    def named(stats: UserStats, new: StudySession) -> list[SessionKey]:
        recorded.append(new)
        answer = {
            "status": 201,
            "body": created(stats, new),
            "etag": etag_of(stats),
            "location": session_location(new),
        }
        return [
            SessionKey(
                username, key, fingerprint=fingerprint, session_id=new.session_id, answer=answer
            )
        ]

    try:
        stats = record_session(
            username, **session, source="api", actor=history.actor(request), also=named
        )
    except AlreadyExists:
        # Another request with this key won the race: answer what it answered.
        if (answer := replayed(username, key, fingerprint)) is not None:
            return answer
        raise
    return created_response(stats, recorded[-1])


def replayed(username: str, key: str, fingerprint: str) -> HttpResponse | None:
    """Return the first answer given for an Idempotency-Key, or None for a new key.

    A key sent with another body is refused with 422: it names a session already recorded
    with other figures, so neither answering the old figures nor recording new ones is right.
    """
    named = SessionKey.live(username, key)
    if named is None:
        return None
    if named.fingerprint != fingerprint:
        raise HttpError(
            422, "This Idempotency-Key was sent with another session: use a new key for it."
        )
    answer = JsonResponse(named.answer["body"], status=named.answer["status"])
    answer["ETag"] = named.answer["etag"]
    if "location" in named.answer:  # keys kept before answers carried the session
        answer["Location"] = named.answer["location"]
    answer["Idempotent-Replayed"] = "true"
    return answer
