"""History and the admin-log in words: local times, sentences, never a stored map or ISO time."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.admin.utils import quote
from django.test import override_settings
from django.utils.formats import date_format

from dynamo_admin.models import AdminLog
from stats.history.recording import record_session
from stats.models import UserStats
from users.models import User

# How the history reads (words, local times): nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")

# What a stored value looks like when a page leaks it: an ISO time, a Python or JSON map.
RAW = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\{['&\"]|\{&quot;|&#x27;")
ALICE_HISTORY = "/admin/users/user/alice/history/"


def content_of(response) -> str:
    """Return the page's main content, without the head and the footer's call counts."""
    page = response.content.decode()
    return page[page.index('id="content"') : page.index('id="footer"')]


def soft_delete_and_restore(client) -> None:
    for action in ("soft_delete_selected", "restore_selected"):
        client.post(
            "/admin/users/user/", {"action": action, "_selected_action": ["alice"], "index": 0}
        )


def entry_page(client, entry: AdminLog) -> str:
    object_id = ",".join(quote(value) for value in entry.pk)
    return content_of(client.get(f"/admin/dynamo_admin/adminlog/{object_id}/change/"))


def test_a_soft_delete_and_a_restore_read_as_their_own_messages(admin_client_, alice):
    soft_delete_and_restore(admin_client_)

    page = content_of(admin_client_.get(ALICE_HISTORY))
    # Newest first: the restore above the soft delete, each a sentence of its own.
    assert page.index("Restored.") < page.index("Soft-deleted")
    assert "Changed deleted at" not in page and not RAW.search(page)
    assert User.get("alice").deleted_at is None


@override_settings(TIME_ZONE="Asia/Tokyo")
def test_history_times_show_in_the_admins_time_zone(admin_client_, alice):
    soft_delete_and_restore(admin_client_)
    soft_deleted = next(e for e in AdminLog.history(alice) if e.changes["deleted_at"][1])
    stored = datetime.fromisoformat(soft_deleted.changes["deleted_at"][1])

    page = content_of(admin_client_.get(ALICE_HISTORY))

    # Django's own words for that moment in Tokyo ("Dec. 4, 2026, 11 p.m." on the hour).
    in_tokyo = date_format(stored.astimezone(ZoneInfo("Asia/Tokyo")), "DATETIME_FORMAT")
    assert in_tokyo in page and not RAW.search(page)


def test_a_recorded_session_reads_as_a_sentence_with_its_numbers(admin_client_, alice):
    record_session("alice", xp=40, questions=10, correct=8, minutes=12, actor="ada")
    record_session("alice", xp=5, questions=1, correct=1, minutes=1, actor="ada")

    page = content_of(admin_client_.get("/admin/stats/userstats/alice/history/"))

    assert "Recorded a session: 40 XP, 8 of 10 right, 12 minutes" in page
    assert "Recorded a session: 5 XP, 1 of 1 right, 1 minute" in page
    assert "<strong>XP</strong>: 160 &rarr; 165" in page and not RAW.search(page)
    assert UserStats.get("alice").xp == 120 + 45


def test_the_log_entry_page_reads_as_djangos_log_entry(admin_client_, alice):
    soft_delete_and_restore(admin_client_)
    restored = AdminLog.history(alice)[0]

    page = entry_page(admin_client_, restored)

    assert "Changed “alice” — Restored." in page  # LogEntry's own __str__ as the title
    assert re.search(r"Action:\s*</label>\s*<div[^>]*>Change</div>", page)
    assert "Learner: alice" in page and not RAW.search(page)
    assert restored.changes["deleted_at"][1] is None  # the stored entry keeps its values


def test_the_log_listing_shows_messages_not_values(admin_client_, alice):
    soft_delete_and_restore(admin_client_)
    record_session("alice", xp=40, questions=10, correct=8, minutes=12, actor="ada")

    page = content_of(admin_client_.get("/admin/dynamo_admin/adminlog/"))

    assert "Soft-deleted" in page and "Restored." in page
    assert "Recorded a session: 40 XP, 8 of 10 right, 12 minutes" in page
    assert not RAW.search(page)


def test_recent_actions_name_the_learner_a_learner(admin_client_, alice):
    soft_delete_and_restore(admin_client_)

    page = content_of(admin_client_.get("/admin/"))
    recent = page[page.index('id="recent-actions-module"') :]

    assert '<span class="mini quiet">Learner</span>' in recent
    assert '<span class="mini quiet">User</span>' not in recent
