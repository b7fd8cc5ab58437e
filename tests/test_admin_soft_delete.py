"""Soft delete and restore as admin actions and change-page buttons, saying what they did."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import formats, timezone

from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.admin_fixtures import client_for, staff
from tests.helpers import clear_caches
from users.models import User, UserSkill

# Messages, permissions and what the pages show are checked on moto alone (ON_MOTO); the soft
# deletes and restores themselves, on the version shown, run on both engines.
ON_MOTO = pytest.mark.engines("moto")

USERS = "/admin/users/user/"


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_bulk_action_soft_deletes_the_selected_learners_and_says_when_they_are_purged(
    admin_client_, alice
):
    response = admin_client_.post(
        USERS,
        {"action": "soft_delete_selected", "_selected_action": ["alice"]},
        follow=True,
    )

    stored = User.get("alice")
    assert stored.deleted_at is not None
    purge_on = timezone.localtime(stored.deleted_at + timedelta(days=30)).date()
    assert messages_of(response) == [
        "“alice” left the leaderboard and the talent search; they are purged on "
        f"{formats.date_format(purge_on)} unless restored."
    ]
    assert list(UserStats.gsi_leaderboard_xp.query("ALL")) == []
    assert UserSkill.get("alice", "python").listed_skill_name is None
    [entry] = [e for e in AdminLog.history(stored) if e.action == "change"]
    assert entry.user == "ada" and "deleted_at" in entry.changes


def test_the_bulk_action_restores_the_selected_learners(admin_client_, alice):
    alice.soft_delete()

    response = admin_client_.post(
        USERS, {"action": "restore_selected", "_selected_action": ["alice"]}, follow=True
    )

    assert User.get("alice").deleted_at is None
    assert messages_of(response) == ["“alice” is back on the leaderboard and in the talent search."]
    assert [s.username for s in UserStats.gsi_leaderboard_xp.query("ALL")] == ["alice"]
    assert UserSkill.get("alice", "python").listed_skill_name == "Python"


def test_the_change_page_button_soft_deletes_on_the_version_shown(admin_client_, alice):
    page = admin_client_.get(f"{USERS}alice/change/").content.decode()
    assert 'formaction="/admin/users/user/alice/soft-delete/"' in page

    response = admin_client_.post(f"{USERS}alice/soft-delete/", {"_version": "1"}, follow=True)

    assert User.get("alice").is_deleted
    assert "left the leaderboard and the talent search" in messages_of(response)[0]
    page = response.content.decode()
    assert 'formaction="/admin/users/user/alice/restore/"' in page


def test_a_stale_button_press_changes_nothing(admin_client_, alice):
    alice.name = "Alice L."
    alice.save()  # version 2: the page showed 1

    response = admin_client_.post(f"{USERS}alice/soft-delete/", {"_version": "1"}, follow=True)

    assert User.get("alice").deleted_at is None
    assert "since you opened it" in messages_of(response)[0]


@ON_MOTO
def test_the_button_takes_a_post(admin_client_, alice):
    assert admin_client_.get(f"{USERS}alice/soft-delete/").status_code == 405
    assert User.get("alice").deleted_at is None


@ON_MOTO
def test_soft_delete_and_restore_need_the_change_permission(db, dynamo, alice):
    client = client_for(staff("vic", "users.view_user", "users.delete_user"))

    button = client.post(f"{USERS}alice/soft-delete/", {"_version": "1"})
    bulk = client.post(USERS, {"action": "soft_delete_selected", "_selected_action": ["alice"]})
    listing = client.get(USERS).content.decode()

    assert (button.status_code, bulk.status_code) == (403, 403)
    assert "soft_delete_selected" not in listing
    assert User.get("alice").deleted_at is None


def test_a_restore_of_a_learner_being_purged_is_refused(admin_client_, alice):
    alice.soft_delete()
    assert alice.claim_for_purge(timezone.now())

    response = admin_client_.post(
        USERS, {"action": "restore_selected", "_selected_action": ["alice"]}, follow=True
    )

    assert User.get("alice").deleted_at is not None
    assert "can no longer be restored" in messages_of(response)[0]


@ON_MOTO
def test_deleted_at_is_not_typed_on_the_form(admin_client_, alice):
    page = admin_client_.get(f"{USERS}alice/change/").content.decode()

    assert 'name="deleted_at_0"' not in page


@ON_MOTO
def test_the_permanent_delete_page_says_it_is_permanent(admin_client_, alice):
    page = admin_client_.get(f"{USERS}alice/delete/").content.decode()

    assert "This is permanent" in page and "Soft delete" in page


@ON_MOTO
def test_the_soft_delete_message_says_truly_when_the_public_pages_drop_the_learner(
    admin_client_, alice, client, settings
):
    settings.LEADERBOARD_CACHE_SECONDS = 1
    clear_caches()  # no board of another test's
    assert 'href="/learners/alice/"' in client.get("/leaderboard/").content.decode()
    assert client.get("/learners/alice/").status_code == 200

    response = admin_client_.post(
        USERS, {"action": "soft_delete_selected", "_selected_action": ["alice"]}, follow=True
    )

    # The pages are served from their cache meanwhile: the message says for how long.
    assert messages_of(response)[0].endswith("show it within 1 second.")
    time.sleep(1.1)
    assert 'href="/learners/alice/"' not in client.get("/leaderboard/").content.decode()
    assert client.get("/learners/alice/").status_code == 404


@ON_MOTO
def test_without_a_cache_the_message_promises_nothing_more(admin_client_, alice, settings):
    settings.LEADERBOARD_CACHE_SECONDS = 0

    response = admin_client_.post(
        USERS, {"action": "soft_delete_selected", "_selected_action": ["alice"]}, follow=True
    )

    assert messages_of(response)[0].endswith("unless restored.")


@ON_MOTO
def test_a_soft_deleted_learner_has_no_view_on_site_link_to_a_404(admin_client_, alice):
    assert 'class="viewsitelink"' in admin_client_.get(f"{USERS}alice/change/").content.decode()
    alice.soft_delete()

    page = admin_client_.get(f"{USERS}alice/change/").content.decode()

    assert 'class="viewsitelink"' not in page
