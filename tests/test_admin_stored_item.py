"""The Stored item page: an item as its table holds it, each secret masked, nothing invented."""

from __future__ import annotations

import html
import json

LEARNER = "/admin/users/user/alice/raw/"


def stored_item(client, url: str) -> dict:
    """Return the item a Stored item page shows, as DynamoDB JSON."""
    text = client.get(url).content.decode()
    raw = text[text.index('<pre id="raw-item">') + 19 : text.index("</pre>")]
    return json.loads(html.unescape(raw))


def test_a_password_hash_shows_masked_as_djangos_widget_shows_it(admin_client_, alice):
    alice.set_password("correct-horse-battery")
    alice.save()
    algorithm, salt, hashed = alice.password_hash.split("$")  # the tests' MD5 hasher

    stored = stored_item(admin_client_, LEARNER)

    # Django's safe_summary: the algorithm, then the salt and hash cut by mask_hash.
    masked = f"algorithm: {algorithm} salt: {salt[:2]}{'*' * (len(salt) - 2)} "
    masked += f"hash: {hashed[:6]}{'*' * (len(hashed) - 6)}"
    assert stored["password_hash"] == {"S": masked}


def test_an_unusable_password_shows_as_stored_with_its_rest_masked(admin_client_, alice):
    alice.set_password(None)  # Django's unusable password: `!` and 40 random characters
    alice.save()

    stored = stored_item(admin_client_, LEARNER)

    # Something is stored, so not "No password set." (the change page's words for it).
    assert stored["password_hash"] == {"S": "!" + "*" * (len(alice.password_hash) - 1)}


def test_a_learner_without_a_password_shows_none(admin_client_, alice):
    assert alice.password_hash is None

    stored = stored_item(admin_client_, LEARNER)

    assert "password_hash" not in stored  # nothing stored, nothing shown
    assert stored["username"] == {"S": "alice"}
