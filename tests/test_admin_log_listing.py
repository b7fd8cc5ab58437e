"""The admin-log listing reads as Django's: its change messages, action words, local times."""

from __future__ import annotations

from django.test import override_settings
from django.utils import formats, timezone

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from tests.admin_fixtures import calls

LOG = "/admin/dynamo_admin/adminlog/"


def test_a_change_reads_as_djangos_change_message_with_a_link_to_the_object(admin_client_, python):
    admin_client_.post(
        "/admin/catalog/skill/python/change/",
        {"name": "Python 3", "category": "Data", "tags": "language", "_version": "1"},
    )

    page = admin_client_.get(LOG).content.decode()

    assert "<td>Changed name and category.</td>" in page
    assert "<td>Change</td>" in page
    assert '<a href="/admin/catalog/skill/python/change/">Skill: python</a>' in page


@override_settings(TIME_ZONE="Europe/Paris")
def test_times_show_in_the_admins_time_zone_not_as_the_stored_key(admin_client_, python):
    entry = AdminLog.record(python, "add", "ada")

    page = admin_client_.get(LOG).content.decode()

    with timezone.override("Europe/Paris"):
        shown = formats.localize(timezone.localtime(entry.logged_time))
    assert f">{shown}</a></th>" in page
    assert f">{entry.logged_at}<" not in page
    assert "<td>Addition</td>" in page and "<td>Added.</td>" in page


def test_the_log_is_listed_newest_first(admin_client_, dynamo):
    for n in range(3):
        skill = Skill(f"s{n}", name=f"S {n}", category="Other")
        skill.save()
        AdminLog.record(skill, "add", "ada")

    response = admin_client_.get(LOG)

    page = response.content.decode()
    positions = [page.index(f"Skill: s{n}</a>") for n in (2, 1, 0)]
    assert positions == sorted(positions)
    # This month's Query, then the year of empty months that ends the walk.
    assert calls(response) <= 1 + 12
