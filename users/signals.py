"""Signals the users app sends so other apps can follow a learner's changes."""

from django.dispatch import Signal

# Sent after a user is soft-deleted or restored, with `user`: who is listed changes.
deletion_changed = Signal()

# Sent after a user is created or renamed, with `user`: copies of the name follow it.
renamed = Signal()

# Sent by the gardener for a purged user, with `user`, after the user is claimed for purging
# and before the user item goes: a receiver deletes what it keeps of the user (a re-run
# sends it again, so deleting must be idempotent) and returns (what, how many), e.g.
# ("stats", 1), for the command's report.
purging = Signal()

# Sent for a user about to be deleted for good (the admin's delete, the gardener's purge), with
# `user`: a receiver returns the dynamo.batch.Partition list of the rows its app keeps under
# the username (study sessions, days, keys). They are deleted after the user is claimed (no
# new row can land) and before the user item, so a delete that dies is finished by a re-run.
owned = Signal()

# Sent by `seed` for each demo learner it makes, with `user`, `skills` (their user-skills),
# `random_seed` and `now`: a
# receiver returns a list of validated items to write for that learner (the same every time
# for the same arguments, so a seed finished later writes identical items).
demo_learner_made = Signal()
