"""Deterministic demo learners: profiles and the skills they hold; other apps add theirs.

Each learner made sends `users.signals.demo_learner_made`; the items receivers return (the
stats app's statistics) are written with the learner's.
"""

from __future__ import annotations

import random
import string
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, UNUSABLE_PASSWORD_SUFFIX_LENGTH

from catalog.models import Skill
from dynamo.batch import prepare_new
from dynamo.models import DynamoModel

from .models import PROFICIENCIES, LearnerWord, User, UserSkill
from .signals import demo_learner_made

SIGN_UP_SPAN = timedelta(days=548)  # about 18 months of sign-ups
EXPERT_PYTHONISTA_EVERY = 15  # every 15th learner is an Expert in Python with 5+ years
EMAIL_DOMAINS = ("example.com", "example.org", "example.net")
ALPHANUMERIC = string.ascii_letters + string.digits


def words(text: str) -> tuple[str, ...]:
    """Return the whitespace-separated words of a text."""
    return tuple(text.split())


FIRST_NAMES = words(
    """
    Aisha Alejandro Amara Andrei Ana Anders Arjun Beatriz Bilal Camille Carlos Chen Chiara
    Chloé Daniel Dmitri Elena Emeka Emma Fatima Felix Freya Gabriel Hana Hassan Ingrid
    Isabel Ivan Jakob James Jia José Julia Kenji Kofi Lars Laura Leila Liam Lucas Maya
    Mateo Mei Mohammed Nadia Niamh Nikolai Noah Olga Omar Priya Rafael Ravi Rosa Sakura
    Samuel Sara Sofia Søren Tariq Thomas Tomás Valentina Wei Yara Yusuf Zoë
    """
)
LAST_NAMES = words(
    """
    Abebe Adeyemi Ahmed Andersen Bauer Becker Bianchi Chen Costa Dubois Dupont Eriksson
    Fernández Fischer García Gonzalez Gupta Hansen Hernández Ito Ivanova Jansen Johnson
    Kaur Kim Kowalski Kumar Larsen Lee Li Lopez Martin Mensah Müller Nakamura Nguyen Novak
    O'Brien Okafor Olsen Park Patel Petrov Popescu Rahman Rossi Santos Schmidt Silva Singh
    Smith Suzuki Tanaka Taylor Wang Weber Williams Wójcik Yamamoto Yilmaz Zhang
    """
)
# How often each catalog skill turns up, relative to 1 for the rest.
POPULARITY = {
    "python": 8,
    "javascript": 7,
    "git": 6,
    "sql-analytics": 4,
    "typescript": 4,
    "docker": 4,
    "postgresql": 4,
    "react": 4,
    "aws-lambda": 3,
    "django": 3,
    "java": 3,
    "kubernetes": 3,
    "nodejs": 3,
    "css": 3,
    "aws-s3": 2,
    "go": 2,
    "pandas": 2,
    "terraform": 2,
    "agile": 2,
}
SKILL_COUNT_WEIGHTS = (10, 16, 18, 16, 14, 10, 8, 8)  # for 1 to 8 skills
MAX_SKILLS = len(SKILL_COUNT_WEIGHTS)
PROFICIENCY_WEIGHTS = (30, 35, 22, 13)
YEARS_BY_PROFICIENCY = {
    "Beginner": (0, 2),
    "Intermediate": (1, 5),
    "Advanced": (3, 12),
    "Expert": (3, 25),
}
NOTES = (
    "Used daily at work.",
    "Mostly side projects.",
    "Certified last year.",
    "Mentoring juniors in this.",
    "Learning it for a new role.",
    "Led a migration with it.",
)


@dataclass
class DemoLearner:
    """One demo learner's items, validated and stamped, ready for a batch write."""

    user: User
    skills: list[UserSkill]
    extras: list[DynamoModel]

    def items(self) -> Iterator[DynamoModel]:
        yield self.user
        yield from self.skills
        yield from self.extras


def ready(item: DynamoModel, updated_at: datetime) -> DynamoModel:
    """Validate, stamp and version an item, then pin its update time so runs are repeatable."""
    prepare_new(item)
    item.updated_at = updated_at
    return item


# Letters Unicode gives no ASCII decomposition, spelled as their languages transliterate them.
TRANSLITERATED = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ð": "d", "đ": "d", "þ": "th", "ł": "l"}
    | {"\u0131": "i"}  # the dotless i
)


def ascii_slug(text: str) -> str:
    """Return the lowercase ASCII letters and digits of a name ('Søren' gives 'soren')."""
    spelled = text.lower().translate(TRANSLITERATED)
    plain = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode()
    return "".join(c for c in plain.lower() if c.isalnum())


class DemoLearners:
    """Make the same learners for the same seed, time anchor and catalog."""

    def __init__(self, seed: int, now: datetime, catalog: Sequence[Skill]) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.now = now
        self.catalog = list(catalog)
        self.weights = [POPULARITY.get(skill.skill_id, 1) for skill in self.catalog]
        self.python = next((s for s in self.catalog if s.skill_id == "python"), None)
        self.taken: set[str] = set()

    def generate(self, count: int) -> Iterator[DemoLearner]:
        """Yield `count` learners with unique usernames and emails."""
        for number in range(count):
            yield self.learner(number)

    def learner(self, number: int) -> DemoLearner:
        rng = self.rng
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        username = self.username(first, last)
        created_at = self.moment(self.now - SIGN_UP_SPAN * rng.random() ** 1.5)
        user = User(
            username,
            name=f"{first} {last}",
            email=f"{username}@{rng.choice(EMAIL_DOMAINS)}",
            # What make_password(None) stores (unusable), drawn from the seed to stay repeatable.
            password_hash=UNUSABLE_PASSWORD_PREFIX
            + "".join(rng.choices(ALPHANUMERIC, k=UNUSABLE_PASSWORD_SUFFIX_LENGTH)),
            created_at=created_at,
        )
        ready(user, self.between(created_at, self.now))
        skills = [self.holding(user, skill, created_at) for skill in self.pick_skills()]
        if self.python is not None and number % EXPERT_PYTHONISTA_EVERY == 0:
            skills = [s for s in skills if s.skill_id != "python"][: MAX_SKILLS - 1]
            skills.append(self.holding(user, self.python, created_at, "Expert", (5, 15)))
        extras = [
            item
            for _, items in demo_learner_made.send(
                type(self), user=user, skills=skills, random_seed=self.seed, now=self.now
            )
            for item in items
        ]
        words = LearnerWord.owned_entries(user)
        for word in words:
            word.created_at = created_at
            ready(word, user.updated_at)
        return DemoLearner(user, skills, [*words, *extras])

    def username(self, first: str, last: str) -> str:
        first, last = ascii_slug(first) or "learner", ascii_slug(last) or "demo"
        style = self.rng.randrange(4)
        base = (f"{first}.{last}", f"{first}{last}", f"{first}_{last}", f"{first[0]}{last}")[style][
            :26
        ]
        candidate, suffix = base, 1
        while candidate in self.taken:
            suffix += 1
            candidate = f"{base}{suffix}"
        self.taken.add(candidate)
        return candidate

    def pick_skills(self) -> list[Skill]:
        rng = self.rng
        count = rng.choices(range(1, MAX_SKILLS + 1), weights=SKILL_COUNT_WEIGHTS)[0]
        pool, weights, picked = list(self.catalog), list(self.weights), []
        for _ in range(min(count, len(pool))):
            index = rng.choices(range(len(pool)), weights=weights)[0]
            picked.append(pool.pop(index))
            weights.pop(index)
        return picked

    def holding(
        self,
        learner: User,
        skill: Skill,
        since: datetime,
        proficiency: str | None = None,
        years: tuple[int, int] | None = None,
    ) -> UserSkill:
        rng = self.rng
        proficiency = proficiency or rng.choices(PROFICIENCIES, weights=PROFICIENCY_WEIGHTS)[0]
        low, high = years or YEARS_BY_PROFICIENCY[proficiency]
        added_at = self.between(since, self.now)
        holding = UserSkill.for_catalog(
            learner,
            skill,
            proficiency=proficiency,
            years=rng.randint(low, high),
            notes=rng.choice(NOTES) if rng.random() < 0.2 else None,
            created_at=added_at,
        )
        return ready(holding, added_at)

    def between(self, start: datetime, end: datetime) -> datetime:
        """Return a moment drawn between two others."""
        return self.moment(start + (end - start) * self.rng.random())

    @staticmethod
    def moment(when: datetime) -> datetime:
        """Drop sub-millisecond digits, as stored times have none."""
        return when.replace(microsecond=when.microsecond // 1000 * 1000)
