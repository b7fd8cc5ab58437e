from dynamo_admin.decorators import register
from dynamo_admin.options import DynamoModelAdmin, TabularInline

from .models import GENRES, Book, Shelf


class BookInline(TabularInline):
    model = Book
    fk_name = "shelf"
    fields = ("isbn", "title", "genre", "copies")
    extra = 1


@register(Shelf)
class ShelfAdmin(DynamoModelAdmin):
    list_display = ("code", "name", "updated_at")
    search_fields = ("=code",)
    inlines = (BookInline,)


@register(Book)
class BookAdmin(DynamoModelAdmin):
    list_display = ("shelf", "isbn", "title", "genre", "copies")
    list_filter = [("genre", GENRES)]  # a Query on gsi_genre, sorted by title
    search_fields = ("=shelf", "^isbn")
