"""System checks catch registrations no key or index can serve, at start-up."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.core import checks

from catalog.models import Skill
from dynamo_admin.options import DynamoModelAdmin, TabularInline
from stats.models import UserStats
from users.models import User, UserSkill


def ids_for(**options) -> list[str]:
    admin_class = type("BrokenAdmin", (DynamoModelAdmin,), options)
    return [error.id for error in admin_class(Skill, admin.site).check()]


def test_the_projects_registrations_pass_every_check(db):
    errors = checks.run_checks(tags=[checks.Tags.admin])

    assert errors == []


@pytest.mark.parametrize(
    ("options", "error_id"),
    [
        ({"list_filter": ["name"]}, "dynamo_admin.E001"),
        ({"list_filter": [("description", ["a"])]}, "dynamo_admin.E001"),
        ({"search_fields": ["name"]}, "dynamo_admin.E002"),
        ({"search_fields": ["^skill_id"]}, "dynamo_admin.E003"),
        ({"date_hierarchy": "created_at"}, "dynamo_admin.E004"),
        ({"ordering": ["description"]}, "dynamo_admin.E005"),
        ({"ordering": ["pending_since"]}, "dynamo_admin.E010"),
        ({"list_display": ["nonsense"]}, "dynamo_admin.E006"),
        ({"readonly_fields": ["nonsense"]}, "dynamo_admin.E007"),
        ({"list_per_page": 0}, "dynamo_admin.E009"),
        ({"autocomplete_fields": ["name"]}, "dynamo_admin.E011"),
    ],
)
def test_a_misconfigured_option_is_reported_with_its_id(options, error_id):
    assert ids_for(**options) == [error_id]


def test_an_inline_not_keyed_by_the_parent_is_reported():
    inline = type("Inline", (TabularInline,), {"model": UserSkill, "fk_name": "skill_id"})
    admin_class = type("UserAdmin", (DynamoModelAdmin,), {"inlines": [inline]})

    assert [e.id for e in admin_class(User, admin.site).check()] == ["dynamo_admin.E008"]


def test_filters_on_index_partition_keys_and_key_searches_pass():
    admin_class = type(
        "StatsAdmin",
        (DynamoModelAdmin,),
        {
            "list_filter": ["next_reminder_bucket"],
            "search_fields": ["=username"],
            "ordering": ["next_reminder_at"],
        },
    )

    assert admin_class(UserStats, admin.site).check() == []


def test_an_ordering_no_read_of_the_admin_lists_by_is_refused_with_a_hint():
    # -xp is gsi_leaderboard_xp's sort key, but this admin reads no leaderboard index.
    admin_class = type("StatsAdmin", (DynamoModelAdmin,), {"ordering": ["-xp"]})

    [error] = admin_class(UserStats, admin.site).check()

    assert error.id == "dynamo_admin.E010"
    assert "field_choices" in error.hint and "date_hierarchy" in error.hint


def test_user_skills_order_by_level_only_where_the_skill_name_filter_serves_it():
    from users.admin import SkillNameFilter

    unserved = type("UserSkillAdmin", (DynamoModelAdmin,), {"ordering": ["-level"]})
    served = type(
        "UserSkillAdmin",
        (DynamoModelAdmin,),
        {"ordering": ["-level"], "list_filter": [SkillNameFilter]},
    )
    by_years = type(
        "UserSkillAdmin",
        (DynamoModelAdmin,),
        {"ordering": ["years"], "list_filter": [SkillNameFilter]},
    )

    assert [e.id for e in unserved(UserSkill, admin.site).check()] == ["dynamo_admin.E010"]
    assert served(UserSkill, admin.site).check() == []
    # Years sort only after the level inside the index: no read lists by years alone.
    assert [e.id for e in by_years(UserSkill, admin.site).check()] == ["dynamo_admin.E005"]


def test_orderings_served_by_a_merge_or_the_month_walk_pass():
    by_name = type("SkillAdmin", (DynamoModelAdmin,), {"ordering": ["name", "-name"]})
    newest = type(
        "UserAdmin",
        (DynamoModelAdmin,),
        {"date_hierarchy": "gsi_created_month", "ordering": ["-created_at"]},
    )

    assert by_name(Skill, admin.site).check() == []
    assert newest(User, admin.site).check() == []


def test_an_admin_naming_the_leaderboard_shards_may_order_by_every_metric():
    from stats.models import leaderboard_partitions

    def get_index_partitions(self, request, index):
        return leaderboard_partitions() if index.Meta.index_name.startswith("gsi_lead") else ()

    admin_class = type(
        "StatsAdmin",
        (DynamoModelAdmin,),
        {
            "ordering": ["-xp", "-streak", "efficiency", "accuracy"],
            "get_index_partitions": get_index_partitions,
        },
    )

    assert admin_class(UserStats, admin.site).check() == []


def test_a_search_of_the_words_a_word_index_holds_passes_and_of_others_is_refused():
    words = type("UserAdmin", (DynamoModelAdmin,), {"search_fields": ["=username", "name"]})
    unindexed = type("UserAdmin", (DynamoModelAdmin,), {"search_fields": ["password_hash"]})

    assert words(User, admin.site).check() == []
    [error] = unindexed(User, admin.site).check()
    assert error.id == "dynamo_admin.E002" and "word_index" in error.hint
