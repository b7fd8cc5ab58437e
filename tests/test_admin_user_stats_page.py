"""The user stats page: totals read-only, corrections through the history, no spurious change."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from io import StringIO

from django.contrib import admin
from django.core.management import call_command
from django.test import RequestFactory

from dynamo_admin.models import AdminLog
from stats.history.models import history_of
from stats.models import UserStats
from tests.test_fuzz import form_fields

ALICE_STATS = "/admin/stats/userstats/alice/change/"
WORKER_FIELDS = ("reminder_claim", "reminder_lease_until", "last_reminder_error")
TOTALS = ("xp", "streak", "efficiency", "accuracy", "sessions")


def test_the_page_groups_totals_reminders_and_the_leaderboard(admin_client_, alice):
    page = admin_client_.get(ALICE_STATS).content.decode()

    assert page.index(">Totals<") < page.index(">Reminders<") < page.index(">Leaderboard<")


def test_xp_is_labelled_as_the_model_names_it_on_the_listing_and_the_change_page(
    admin_client_, alice
):
    listing = admin_client_.get("/admin/stats/userstats/").content.decode()
    page = admin_client_.get(ALICE_STATS).content.decode()

    # UserStats.field_labels says "XP"; the other attributes keep their humanised names.
    assert re.search(r'<th[^>]*class="[^"]*column-xp[^"]*"[^>]*>.*?XP', listing, re.S)
    assert re.search(r"<label>XP:</label>", page)
    assert "<label>Streak:</label>" in page
    # As a word, not inside a random token (the CSRF token's letters can spell it).
    assert not re.search(r"\bXp\b", listing + page)
    # A form field of the attribute (the corrections' form, a project's own fields) too.
    request = RequestFactory().get(ALICE_STATS)
    form_class = admin.site.get_model_admin(UserStats).form_class_for(request, ["xp", "streak"])
    assert [f.label for f in form_class.base_fields.values()][:2] == ["XP", "Streak"]


def test_no_total_and_no_reminder_worker_field_is_an_input(admin_client_, alice):
    fields = form_fields(admin_client_, ALICE_STATS)

    assert not set(fields) & {*TOTALS, *WORKER_FIELDS}
    assert "reminder_hour" in fields and "next_reminder_at_0" in fields


def test_a_typed_total_is_not_saved(admin_client_, alice):
    shown = form_fields(admin_client_, ALICE_STATS)

    response = admin_client_.post(ALICE_STATS, {**shown, "xp": "12000", "streak": "40"})

    assert response.status_code == 302, response.content.decode()
    stored = UserStats.get("alice")
    assert (stored.xp, stored.streak) == (120, 3)


def test_a_reminder_time_the_widget_shows_to_the_second_is_no_change(admin_client_, alice):
    when = datetime(2030, 1, 2, 3, 4, 5, 678000, UTC)  # stored to the millisecond
    UserStats.apply("alice", [UserStats.next_reminder_at.set(when)])
    shown = form_fields(admin_client_, ALICE_STATS)
    assert shown["next_reminder_at_1"] == "03:04:05"

    response = admin_client_.post(ALICE_STATS, shown)

    assert response.status_code == 302, response.content.decode()
    stored = UserStats.get("alice")
    assert stored.next_reminder_at == when
    assert [e for e in AdminLog.history(stored) if "next_reminder_at" in (e.changes or {})] == []


def correct(client, usernames: list[str], xp: int, reason: str = "Points lost in an import"):
    return client.post(
        "/admin/stats/userstats/",
        {
            "action": "correct_xp",
            "_selected_action": usernames,
            "apply": "1",
            "xp": str(xp),
            "reason": reason,
        },
        follow=True,
    )


def test_a_correction_is_a_row_of_the_history_with_a_history_entry(admin_client_, alice):
    # Alice's fixture stats were typed (120 XP, no session): make the history hold them first.
    call_command("verify_stats", "--fix", stdout=StringIO())
    before = UserStats.get("alice")

    response = correct(admin_client_, ["alice"], 25)

    assert "Corrected the XP of 1 learner." in response.content.decode()
    [row] = [s for s in history_of("alice") if s.source == "correction"]
    assert (row.xp, row.reason, row.minutes) == (25, "Points lost in an import", 0)
    stored = UserStats.get("alice")
    assert (stored.xp, stored.sessions, stored.streak) == (before.xp + 25, before.sessions, 3)
    [entry, *_] = AdminLog.history(stored)
    assert entry.user == "ada"
    assert entry.changes["session"][1]["reason"] == "Points lost in an import"
    assert entry.changes["xp"] == [before.xp, before.xp + 25]
    call_command("verify_stats", stdout=StringIO())  # exits 0: the history holds the correction


def test_a_correction_below_zero_xp_is_a_form_error_and_writes_nothing(admin_client_, alice):
    response = correct(admin_client_, ["alice"], -500)

    page = response.content.decode()
    assert 'id="correct-xp-form"' in page and "below 0" in page
    assert UserStats.get("alice").xp == 120
    assert [s for s in history_of("alice") if s.source == "correction"] == []


def test_a_correction_needs_a_reason(admin_client_, alice):
    response = correct(admin_client_, ["alice"], 10, reason="")

    assert "This field is required." in response.content.decode()
    assert UserStats.get("alice").xp == 120
