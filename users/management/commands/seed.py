"""Seed a deterministic demo data set: catalog, learners, their skills and statistics."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from django.core.management.base import CommandError

from catalog.demo import demo_skills
from dynamo.batch import BATCH_SIZE, prepare_new, put_request
from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo.models import DynamoModel, utcnow
from dynamo.parallel import Batch, add_threads_argument, write_batches
from users.demo import SIGN_UP_SPAN, DemoLearners
from users.models import User
from workers import jobs

DEFAULT_SEED = 42
JOB = "seed"


def parse_now(value: str) -> datetime:
    """Parse an ISO-8601 time; a time without an offset is taken as UTC."""
    try:
        when = datetime.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"--now {value!r} is not an ISO-8601 time.") from exc
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.replace(microsecond=when.microsecond // 1000 * 1000)


def users_table_has_items() -> bool:
    """Return whether the users table holds any item (a Scan with Limit=1)."""
    return next(iter(User.scan(limit=1, attributes_to_get=["username"])), None) is not None


def in_batches(items: Iterable[DynamoModel]) -> Iterator[Batch]:
    """Group items into per-table batches of put requests, 25 at most."""
    pending: dict[type[DynamoModel], list] = {}
    for item in items:
        requests = pending.setdefault(type(item), [])
        requests.append(put_request(item))
        if len(requests) == BATCH_SIZE:
            yield type(item), pending.pop(type(item))
    for model, requests in pending.items():
        yield model, requests


def describe(items: Iterable[DynamoModel]) -> str:
    """Return how many items of each kind, as `48 skills, 20 users, ... and 20 stats`."""
    counts: dict[type[DynamoModel], int] = {}
    for item in items:
        counts[type(item)] = counts.get(type(item), 0) + 1
    parts = [f"{count} {model.verbose_name_plural}" for model, count in counts.items()]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


class Command(DynamoCommand):
    help = (
        "Write a deterministic demo data set: the skills catalog, N learners with 1-8 skills "
        "each and one stats item per learner with a reminder in the next 48 hours. The same "
        "--random-seed and --now give identical items; items with the same keys are overwritten."
    )

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=100, help="Learners to create (100).")
        parser.add_argument(
            "--random-seed",
            type=int,
            default=DEFAULT_SEED,
            help=f"Seed of the generator; the same seed gives the same data ({DEFAULT_SEED}).",
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when the users table already holds an item, unless a seed was "
            "interrupted: then finish that one, with its own options.",
        )
        parser.add_argument(
            "--now",
            help="ISO-8601 time anchoring sign-ups (past 18 months) and reminders (next 48 "
            "hours); defaults to the current time.",
        )
        add_threads_argument(parser)

    def handle(self, *args, **options):
        users, threads = options["users"], options["threads"]
        if users < 0:
            raise CommandError("--users must be 0 or more.")
        if threads < 1:
            raise CommandError("--threads must be 1 or more.")
        now = parse_now(options["now"]) if options["now"] else utcnow()
        seed = options["random_seed"]
        if options["if_empty"]:
            unfinished = jobs.read_state(JOB)
            if unfinished:
                # Killed half-way: the same options give the same items, so writing them all
                # again finishes the data set (the items already there are rewritten as is).
                users, seed = unfinished["users"], unfinished["random_seed"]
                now = parse_now(unfinished["now"])
                self.stdout.write(f"An earlier seed of {users} users did not finish: finishing it.")
            elif users_table_has_items():
                self.stdout.write("The users table already holds data: nothing seeded.")
                return
        started = time.perf_counter()
        catalog = [prepare_new(skill) for skill in demo_skills(now - SIGN_UP_SPAN)]
        for skill in catalog:
            skill.updated_at = skill.created_at
        learners = list(DemoLearners(seed, now, catalog).generate(users))
        items: list[DynamoModel] = [*catalog]
        for learner in learners:
            items.extend(learner.items())
        # Marked before the first write, cleared after the last: `--if-empty` finishes a seed
        # that died in between instead of taking its half data set for a populated table.
        jobs.store_state(JOB, {"users": users, "random_seed": seed, "now": now.isoformat()})
        with Progress(self.stdout, len(items), "Seeding") as progress:
            written = write_batches(in_batches(items), threads=threads, on_batch=progress.update)
        jobs.forget(JOB)
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {describe(items)} ({written} items) in "
                f"{time.perf_counter() - started:.1f} s: {self.meter.summary()}."
            )
        )
