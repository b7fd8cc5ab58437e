"""seed: a deterministic demo data set of catalog, learners, user-skills and stats."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.hashers import is_password_usable
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import CATEGORIES, Skill
from stats.models import UserStats, accuracy_of, efficiency_of, reminder_bucket
from tests.helpers import empty_all_tables, snapshot
from users.demo import ascii_slug
from users.models import PROFICIENCIES, User, UserSkill
from workers import jobs

# What the seed generates and prints does not depend on the engine: checked on moto alone
# (ON_MOTO); its writes, re-runs and resumed runs run on both engines.
ON_MOTO = pytest.mark.engines("moto")

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def seed(**options) -> str:
    out = StringIO()
    call_command("seed", users=20, now=NOW.isoformat(), stdout=out, **options)
    return out.getvalue()


@ON_MOTO
def test_it_writes_a_catalog_covering_every_category(dynamo):
    seed()

    skills = list(Skill.scan())
    assert len(skills) >= 40
    assert {skill.category for skill in skills} == set(CATEGORIES)
    assert all(skill.description and skill.tags for skill in skills)


def test_it_writes_the_requested_learners_with_unique_names_and_emails(dynamo):
    output = seed()

    users = list(User.scan())
    assert len(users) == 20
    assert len({u.username for u in users}) == len({u.email for u in users}) == 20
    assert all(" " in u.name for u in users)
    assert not any(is_password_usable(u.password_hash) for u in users)
    assert "Seeded 48 skills, 20 learners" in output


@ON_MOTO
def test_sign_ups_spread_over_the_past_eighteen_months(dynamo):
    call_command("seed", users=80, now=NOW.isoformat(), stdout=StringIO())

    users = list(User.scan())
    assert all(NOW - timedelta(days=550) <= u.created_at <= NOW for u in users)
    months = {u.created_month for u in users}
    assert len(months) >= 12
    assert months == {u.created_at.strftime("%Y-%m") for u in users}


@ON_MOTO
def test_each_learner_holds_one_to_eight_catalog_skills_with_copied_names(dynamo):
    seed()

    catalog = {skill.skill_id: skill for skill in Skill.scan()}
    holdings = list(UserSkill.scan())
    per_user: dict[str, int] = {}
    for holding in holdings:
        per_user[holding.username] = per_user.get(holding.username, 0) + 1
        skill = catalog[holding.skill_id]
        assert (holding.skill_name, holding.category) == (skill.name, skill.category)
        assert 0 <= holding.years <= 60
    assert len(per_user) == 20
    assert all(1 <= count <= 8 for count in per_user.values())
    assert {h.proficiency for h in holdings} == set(PROFICIENCIES)


@ON_MOTO
def test_some_learners_are_expert_in_python_with_five_years_or_more(dynamo):
    seed()

    experts = list(UserSkill.search("Python", "Expert", 5))
    assert experts
    assert all(e.proficiency == "Expert" and e.years >= 5 for e in experts)


@ON_MOTO
def test_each_learner_has_stats_with_a_reminder_in_the_next_two_days(dynamo):
    seed()

    stats = list(UserStats.scan())
    assert len(stats) == 20
    for item in stats:
        assert item.xp == int(item.xp) >= 0 and item.streak == int(item.streak) >= 0
        assert 0 <= item.efficiency <= 100 and 0 <= item.accuracy <= 100
        assert NOW < item.next_reminder_at <= NOW + timedelta(hours=48)
        assert item.next_reminder_bucket == reminder_bucket(item.next_reminder_at)
    assert len({item.xp for item in stats}) > 10
    assert len({item.next_reminder_bucket for item in stats}) > 10


def test_the_same_seed_and_time_give_identical_items(dynamo):
    seed(random_seed=7)
    first = snapshot()
    empty_all_tables()

    seed(random_seed=7)

    assert snapshot() == first


@ON_MOTO
def test_another_seed_gives_other_learners(dynamo):
    seed(random_seed=7)
    first = {u.username for u in User.scan()}
    empty_all_tables()

    seed(random_seed=8)

    assert {u.username for u in User.scan()} != first


def test_if_empty_leaves_a_populated_users_table_alone(dynamo):
    User("alice", name="Alice", email="alice@example.com").save()

    output = seed(if_empty=True)

    assert "nothing seeded" in output
    assert [u.username for u in User.scan()] == ["alice"]
    assert list(Skill.scan()) == []


def test_if_empty_seeds_an_empty_users_table(dynamo):
    seed(if_empty=True)

    assert len(list(User.scan())) == 20


@ON_MOTO
def test_without_a_terminal_it_prints_plain_progress_lines(dynamo):
    output = seed()

    assert "Seeding: " in output
    assert "(100%)" in output


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


@ON_MOTO
def test_on_a_terminal_it_draws_a_progress_bar(dynamo):
    terminal = Terminal()

    call_command("seed", users=5, now=NOW.isoformat(), stdout=terminal)

    assert "100%|" in terminal.getvalue()
    assert "Seeding: " not in terminal.getvalue().replace("\rSeeding: ", "")


@ON_MOTO
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"now": "yesterday"}, "not an ISO-8601 time"),
        ({"users": -1}, "--users must be 0 or more"),
    ],
)
def test_bad_options_are_command_errors(dynamo, options, message):
    with pytest.raises(CommandError, match=message):
        call_command("seed", **{"users": 1, **options}, stdout=StringIO())

    assert list(User.scan()) == []


@ON_MOTO
def test_seeded_metrics_are_what_the_seeded_totals_give(dynamo):
    seed()

    stats = list(UserStats.scan())
    for item in stats:
        assert item.accuracy == accuracy_of(item.questions_answered, item.questions_correct)
        assert item.efficiency == efficiency_of(item.questions_correct, item.minutes_studied)
        assert item.questions_correct <= item.questions_answered
        assert item.streak <= item.sessions
    assert len({item.accuracy for item in stats}) > 10
    assert all(item.accuracy == 0 for item in stats if item.questions_answered == 0)


@ON_MOTO
def test_seeded_streaks_are_current(dynamo):
    seed()

    today, yesterday = NOW.date(), NOW.date() - timedelta(days=1)
    stats = list(UserStats.scan())
    for item in stats:
        if item.streak:
            assert item.last_active_day in (today.isoformat(), yesterday.isoformat())
        elif item.last_active_day is not None:
            assert item.last_active_day <= (today - timedelta(days=2)).isoformat()
    assert any(item.streak > 1 for item in stats)
    assert any(item.streak == 0 and item.last_active_day for item in stats)


def test_a_finished_seed_leaves_no_marker(dynamo):
    seed()

    assert jobs.Job.get_or_none("seed") is None


def test_if_empty_finishes_an_unfinished_seed_with_its_own_options(dynamo):
    # What a seed killed after its first batches leaves: its marker and a few learners.
    jobs.store_state("seed", {"users": 20, "random_seed": 7, "now": NOW.isoformat()})
    User("alice", name="Alice", email="alice@example.com").save()

    output = StringIO()
    call_command("seed", users=3, if_empty=True, stdout=output)

    assert "did not finish: finishing it" in output.getvalue()
    assert len(list(User.scan())) == 21
    assert len(list(UserStats.scan())) == 20
    assert jobs.Job.get_or_none("seed") is None
    assert "nothing seeded" in seed(if_empty=True)


@pytest.mark.engines("local")
def test_a_seed_killed_half_way_is_finished_by_the_next_if_empty_run(dynamo):
    prefix = User.Meta.table_name.removesuffix("users")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_ENV_FILE": "",
        "DJANGO_SECRET_KEY": "x" * 40,
        "SITE_URL": "http://127.0.0.1:8000",
        "DYNAMODB_ENDPOINT": User.Meta.host,
        "DYNAMODB_TABLE_PREFIX": prefix,
    }
    args = ["seed", "--users", "400", "--random-seed", "3", "--now", NOW.isoformat()]
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args, "--threads", "1"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(UserStats.scan(limit=1)) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    written = len(list(User.scan()))
    assert 0 < written < 400, "the seed was not caught half-way"
    assert jobs.read_state("seed") is not None

    output = StringIO()
    call_command("seed", if_empty=True, stdout=output)

    assert "did not finish: finishing it" in output.getvalue()
    assert len(list(User.scan())) == len(list(UserStats.scan())) == 400
    catalog = {skill.skill_id for skill in Skill.scan()}
    assert {holding.skill_id for holding in UserSkill.scan()} <= catalog
    assert jobs.read_state("seed") is None


@pytest.mark.parametrize(
    ("name", "slug"), [("Søren", "soren"), ("Æsa", "aesa"), ("Łukasz", "lukasz"), ("Zoë", "zoe")]
)
def test_usernames_spell_letters_without_an_ascii_form_as_their_languages_do(name, slug):
    assert ascii_slug(name) == slug
