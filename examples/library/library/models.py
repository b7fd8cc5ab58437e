"""Two small tables: shelves (a hash key) and their books (hash and range key, one GSI)."""

from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel
from dynamo.validators import FieldErrors, length_between, one_of, whole_number

GENRES = ("Fiction", "History", "Poetry", "Science")


class Shelf(DynamoModel):
    """A shelf, known by its code."""

    app_label = "library"
    verbose_name = "shelf"
    verbose_name_plural = "shelves"

    class Meta(DynamoMeta):
        table_suffix = "shelves"

    code = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("name", self.name):
            errors.check("name", length_between(2, 100), self.name)
        return errors


class GenreIndex(GlobalIndex):
    """Books of one genre, by title."""

    class Meta:
        index_name = "gsi_genre"
        projection = AllProjection()

    genre = UnicodeAttribute(hash_key=True)
    title = UnicodeAttribute(range_key=True)


class Book(DynamoModel):
    """A book on a shelf: the shelf's code and the book's ISBN are its key."""

    app_label = "library"
    verbose_name = "book"

    class Meta(DynamoMeta):
        table_suffix = "books"

    shelf = UnicodeAttribute(hash_key=True)
    isbn = UnicodeAttribute(range_key=True)
    title = UnicodeAttribute()
    genre = UnicodeAttribute()
    copies = NumberAttribute(default=1)

    gsi_genre = GenreIndex()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("title", self.title):
            errors.check("title", length_between(1, 200), self.title)
        if errors.require("genre", self.genre):
            errors.check("genre", one_of(GENRES), self.genre)
        if errors.require("copies", self.copies):
            errors.check("copies", whole_number(0, 1000), self.copies)
        return errors
