"""A word index: find items by a case- and accent-insensitive prefix of any word of some fields.

Each indexed item owns one small item per normalised word of its fields (a name's words, a
whole email, a username) in a table of its own: partition `head` (the word's first two
characters, so a Query of a two-letter prefix or longer hits one partition), sort `entry`
(`word#owner`). A search Queries `begins_with(term)` in one partition, the owners come in
one BatchGetItem, and each owner is checked against every term of the search, so an entry
left stale by a race finds nothing wrong: it only costs a read.

Some fields are for staff only (an email): the words of the others, `public_fields`, are
indexed once more under heads of their own (`public#` and the two characters), and a public
search reads only those and checks the owners on those fields only. So nothing it answers,
nor the reads it makes, depends on a staff-only word: a prefix of an email costs and answers
what any text nobody has does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from pynamodb.attributes import UnicodeAttribute

from .batch import write_rows
from .models import DynamoModel

HEAD_LENGTH = 2
# The shortest term a search Queries with: shorter terms only narrow what a longer one found.
MIN_TERM_LENGTH = HEAD_LENGTH
MAX_WORD_LENGTH = 200
# A search Queries at most this many of its terms, the others checked on the owners.
MAX_TERMS_QUERIED = 3
# Starts the heads of the public entries (a word's own head is two characters at most).
PUBLIC_HEAD = "public#"
SEPARATORS = re.compile(r"[\s#]+")
NOT_WORD = re.compile(r"[^\w]+")
EDGE_PUNCTUATION = "@.,;:!?'\"()[]{}<>-_+"


def normalise(text: str) -> str:
    """Return text case-folded and without accents (`Zoë` → `zoe`), as the index keeps it."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def words_in(text: str | None) -> set[str]:
    """Return the indexed words of a text: each token and each of its parts.

    `Mary-Jane O'Brien` gives mary-jane, mary, jane, o'brien, o and brien; an email stays
    whole and gives the parts of its local part (not its domain: `com` would find everyone).
    """
    words: set[str] = set()
    for token in SEPARATORS.split(normalise(text or "")):
        token = token.strip(EDGE_PUNCTUATION)[:MAX_WORD_LENGTH]
        if token:
            words.add(token)
            words.update(part for part in NOT_WORD.split(token.split("@")[0]) if part)
    return words


def search_terms(text: str) -> list[str]:
    """Return a search's terms, normalised: `@Kofi.Mensah` → [`kofi.mensah`]."""
    terms = (token.strip(EDGE_PUNCTUATION) for token in SEPARATORS.split(normalise(text)))
    return list(dict.fromkeys(term for term in terms if term))


class BadSearch(ValueError):
    """A search with no term long enough to Query the index with, or a term too long."""


class WordIndex(DynamoModel):
    """Abstract: the word entries of one model's items (subclass with a table and `fields`)."""

    # The model whose items are indexed (a single hash key) and the fields whose words count.
    indexed: ClassVar[type[DynamoModel]]
    fields: ClassVar[tuple[str, ...]] = ()
    # Those of `fields` anyone may search by; a public search never sees the others' words.
    public_fields: ClassVar[tuple[str, ...]] = ()
    # Deleted along with an item, never logged: an entry is a copy, not something staff edit.
    keeps_history: ClassVar[bool] = False

    head = UnicodeAttribute(hash_key=True)
    entry = UnicodeAttribute(range_key=True)  # word#owner
    owner = UnicodeAttribute()

    # --- the words of an item ----------------------------------------------------------
    @classmethod
    def words_of(cls, item: DynamoModel, *, stored: bool = False, public: bool = False) -> set[str]:
        """Return the item's words (public: of its public fields), as it is now or as stored."""
        words: set[str] = set()
        for name in cls.public_fields if public else cls.fields:
            value = item.stored_value(name) if stored else getattr(item, name)
            words |= words_in(value)
        return words

    @classmethod
    def head_of(cls, word: str, *, public: bool = False) -> str:
        """Return the partition of a word's entry (public: of its public entry)."""
        return f"{PUBLIC_HEAD}{word[:HEAD_LENGTH]}" if public else word[:HEAD_LENGTH]

    @classmethod
    def entries_for(
        cls, owner: str, words: Iterable[str], *, public: bool = False
    ) -> list[WordIndex]:
        """Return the entries of an owner's words (public: their public entries)."""
        return [
            cls(cls.head_of(word, public=public), f"{word}#{owner}", owner=owner)
            for word in sorted(words)
        ]

    @classmethod
    def owned_entries(cls, item: DynamoModel, *, stored: bool = False) -> list[WordIndex]:
        """Return an item's entries, as it is now or (stored) as it was last read or written.

        One per word for staff, and one more per word of a public field for anyone.
        """
        owner = item.pk[0]
        return [
            *cls.entries_for(owner, cls.words_of(item, stored=stored)),
            *cls.entries_for(owner, cls.words_of(item, stored=stored, public=True), public=True),
        ]

    @classmethod
    def entries_of(cls, item: DynamoModel) -> list[WordIndex]:
        """Return the entries an item owns now and as stored (what a delete removes)."""
        entries = [*cls.owned_entries(item), *cls.owned_entries(item, stored=True)]
        return list({(entry.head, entry.entry): entry for entry in entries}.values())

    @classmethod
    def changes_for(cls, item: DynamoModel) -> tuple[list[WordIndex], list[WordIndex]]:
        """Return the entries of the item's new words and of the words it lost (to delete).

        Both empty when no indexed field changed; a rename changes a few entries.
        """
        now = {(e.head, e.entry): e for e in cls.owned_entries(item)}
        before = {(e.head, e.entry): e for e in cls.owned_entries(item, stored=True)}
        return (
            [entry for key, entry in now.items() if key not in before],
            [entry for key, entry in before.items() if key not in now],
        )

    @classmethod
    def forget(cls, item: DynamoModel) -> int:
        """Delete every entry the item owns (a purge); return how many were sent."""
        entries = cls.entries_of(item)
        write_rows([], entries)
        return len(entries)

    # --- finding -----------------------------------------------------------------------
    @classmethod
    def query_terms(cls, terms: list[str]) -> list[str]:
        """Return the terms a search may Query with, longest first; raise BadSearch if none."""
        if any(len(term) > MAX_WORD_LENGTH for term in terms):
            message = _("Search for words of at most %(count)d characters.")
            raise BadSearch(message % {"count": MAX_WORD_LENGTH})
        usable = sorted((t for t in terms if len(t) >= MIN_TERM_LENGTH), key=len, reverse=True)
        if not usable:
            message = _("Type at least %(count)d letters of a word to search.")
            raise BadSearch(message % {"count": MIN_TERM_LENGTH})
        return usable[:MAX_TERMS_QUERIED]

    @classmethod
    def term_resuming(cls, terms: list[str], start: dict[str, Any]) -> str:
        """Return the term whose Query a cursor's start belongs to (its entry starts with it)."""
        entry = cls.entry.deserialize(cls.entry.get_value(start[cls.entry.attr_name]))
        for term in terms:
            if entry.startswith(term):
                return term
        raise BadSearch(_("This page link belongs to another search."))

    @classmethod
    def driving_query(
        cls, terms: list[str], read: Callable[[str], tuple[list, Any]]
    ) -> tuple[str, tuple[list, Any]]:
        """Read each term's first page; return the term and its (entries, next start).

        The narrowest term drives: one whose Query came to its end with the fewest entries,
        else the longest ("learner 42" lists by "42", not by a word everyone shares). The
        other terms are checked on the owners read.
        """
        pages = [read(term) for term in terms]
        ended = [(len(items), n) for n, (items, more) in enumerate(pages) if more is None]
        chosen = min(ended)[1] if ended else 0
        return terms[chosen], pages[chosen]

    @classmethod
    def entries_starting(
        cls,
        term: str,
        *,
        limit: int,
        last_evaluated_key: dict[str, Any] | None = None,
        forward: bool = True,
        public: bool = False,
    ) -> Any:
        """Query the entries whose word starts with term, in word order (one Query).

        Public: only the entries of public words.
        """
        return cls.query(
            cls.head_of(term, public=public),
            range_key_condition=cls.entry.startswith(term),
            scan_index_forward=forward,
            limit=limit,
            last_evaluated_key=last_evaluated_key,
        )

    @classmethod
    def owners_matching(
        cls,
        entries: Iterable[WordIndex],
        terms: list[str],
        *,
        public: bool = False,
        known: Iterable[DynamoModel] = (),
    ) -> list[DynamoModel]:
        """Return the distinct owners of these entries that match every term, in their order.

        Public: every term must start a word of their public fields. `known` are owners
        already read (an exact key's item): they are not read again.
        """
        owners = list(dict.fromkeys(entry.owner for entry in entries))
        found = {item.pk[0]: item for item in known}
        missing = [owner for owner in owners if owner not in found]
        if missing:
            found.update((item.pk[0], item) for item in cls.indexed.batch_get(missing))
        return [
            found[owner]
            for owner in owners
            if owner in found and cls.matches(found[owner], terms, public=public)
        ]

    @classmethod
    def matches(cls, item: DynamoModel, terms: list[str], *, public: bool = False) -> bool:
        """Return whether every term starts one of the item's words (public: public words)."""
        words = cls.words_of(item, public=public)
        return all(any(word.startswith(term) for word in words) for term in terms)

    @classmethod
    def find(cls, text: str, *, limit: int = 10, public: bool = False) -> list[DynamoModel]:
        """Return up to `limit` items matching every term of text.

        A Query per term (up to three) and one BatchGetItem of a few owners. Public
        (anyone's search): by the words of the public fields alone, reading no other entry.
        """
        terms = search_terms(text)

        def read(term: str) -> tuple[list, Any]:
            # Several entries of one owner may start with the term: read a few more than asked.
            results = cls.entries_starting(term, limit=limit * 2 + 1, public=public)
            return list(islice(results, limit * 2)), results.last_evaluated_key

        _, (entries, _) = cls.driving_query(cls.query_terms(terms), read)
        return cls.owners_matching(entries, terms, public=public)[:limit]
