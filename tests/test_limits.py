"""DynamoDB's limits: refused as field errors or 4xx pages before the engine sees them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Skill
from dynamo import limits
from dynamo.batch import batch_put
from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.admin_fixtures import alice_change_post, calls
from tests.helpers import learners_for, snapshot
from users.models import UserSkill

FORTY_DIGITS = "1234567890123456789012345678901234567890"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (Decimal(FORTY_DIGITS), "38 significant digits"),
        (Decimal("1e126"), "Too large"),
        (Decimal("-1e126"), "Too large"),
        (Decimal("1e-131"), "Too small"),
        (1e-200, "Too small"),
        (float("inf"), "finite"),
        (float("nan"), "finite"),
    ],
)
def test_a_number_dynamodb_cannot_store_is_named(value, fragment):
    assert fragment in limits.number_problem(value)


@pytest.mark.parametrize(
    "value",
    [0, -7, Decimal("1e-130"), Decimal("9.9999999999999999999999999999999999999E+125"),
     Decimal("1" + "0" * 60), Decimal("12345678901234567890123456789012345678"), 75.5],
)  # fmt: skip
def test_a_number_dynamodb_can_store_passes(value):
    assert limits.number_problem(value) is None


def test_key_sizes_are_counted_in_utf8_bytes():
    assert limits.key_problem("é" * 1024) is None  # 2048 bytes
    assert "2048 bytes" in limits.key_problem("é" * 1025)
    assert limits.key_problem("a" * 1024, sort=True) is None
    assert "1024 bytes" in limits.key_problem("a" * 1025, sort=True)
    assert "empty" in limits.key_problem("")


def test_an_item_is_sized_as_dynamodb_counts_it():
    item = {
        "name": {"S": "héllo"},  # 4 + 6
        "n": {"N": "123.4500"},  # 1 + (5 significant digits: 3 bytes + 1)
        "ok": {"BOOL": True},  # 2 + 1
        "tags": {"SS": ["ab", "c"]},  # 4 + 3
        "m": {"M": {"k": {"S": "v"}}},  # 1 + 3 + (1 + 1 + 1)
    }

    assert limits.item_size(item) == 10 + 5 + 3 + 7 + 7


def test_a_40_digit_integer_is_a_field_error_and_nothing_is_stored(dynamo):
    with pytest.raises(ValidationError) as caught:
        UserStats("alice", xp=int(FORTY_DIGITS)).save()

    assert "38 significant digits" in caught.value.message_dict["xp"][0]
    assert UserStats.get_or_none("alice") is None


def test_a_tiny_fraction_is_a_field_error_not_a_silent_zero(dynamo):
    with pytest.raises(ValidationError) as caught:
        UserStats("alice", efficiency=1e-200).save()

    assert set(caught.value.message_dict) == {"efficiency"}
    assert UserStats.get_or_none("alice") is None


def test_an_item_over_400_kb_names_its_largest_field(dynamo):
    learners_for(["alice"])
    huge = UserStats("alice", last_reminder_error="x" * 1024 * 1024)

    with pytest.raises(ValidationError) as caught:
        huge.save()

    assert list(caught.value.message_dict) == ["last_reminder_error"]
    assert "400 KB" in caught.value.message_dict["last_reminder_error"][0]
    assert UserStats.get_or_none("alice") is None


def test_a_batch_holding_one_oversized_key_writes_nothing(dynamo):
    good = AdminLog("catalog.skill:python", logged_at="2025-01-01T00:00:00", action="add", user="a")
    bad = AdminLog("x" * 2049, logged_at="2025-01-01T00:00:00", action="add", user="a")

    with pytest.raises(ValidationError) as caught:
        batch_put(AdminLog, [good, bad])

    assert "2048 bytes" in caught.value.message_dict["object_key"][0]
    assert snapshot() == []


def test_a_key_dynamodb_cannot_hold_names_no_item_and_costs_no_call(dynamo):
    assert Skill.get_or_none("s" * 2049) is None
    assert UserSkill.get_or_none("alice", "s" * 1025) is None
    assert list(Skill.batch_get(["s" * 2049])) == []


def test_the_admin_shows_a_40_digit_number_as_a_field_error_and_stores_nothing(
    admin_client_, alice
):
    before = snapshot()
    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(**{"userskill-0-years": FORTY_DIGITS})
    )

    assert response.status_code == 200
    assert "38 significant digits" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("number", ["1e309", "1e-200", "-1e200"])
def test_the_admin_refuses_numbers_out_of_dynamodbs_range(admin_client_, alice, number):
    before = snapshot()
    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(**{"userskill-0-years": number})
    )

    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/admin/users/user/?q=/", 400),
        ("/admin/users/userskill/?q=%20/%20", 400),
        ("/admin/users/user/?q=" + "a" * 2100, 400),
        ("/admin/users/userskill/?q=alice/" + "b" * 1100, 400),
        ("/admin/stats/userstats/?q=" + "9" * 40, 200),  # a string key: no such learner
        ("/admin/users/user/?year=%C2%B2", 200),
        ("/admin/users/user/" + "a" * 2100 + "/change/", 302),
        ("/admin/users/userskill/alice," + "b" * 1100 + "/change/", 302),
        ("/leaderboard/?user=" + "a" * 2100, 404),
    ],
)
def test_a_key_too_long_for_dynamodb_in_a_url_is_a_4xx_or_no_match(
    admin_client_, alice, url, status
):
    response = admin_client_.get(url)

    assert response.status_code == status
    meter = response.wsgi_request.dynamo_meter
    assert meter.count_of("Scan") == 0  # refused, looked up by key or a listing's index
    if "?year=" not in url:
        assert calls(response) <= 1  # refused or looked up by key
