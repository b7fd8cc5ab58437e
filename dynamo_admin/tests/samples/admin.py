from dynamo_admin import ModelAdmin, register

from .models import Forum, ProductCatalog, Reply, Thread
from .styles import Breaker, Circuit, Reading, Startup


@register(ProductCatalog)
class ProductCatalogAdmin(ModelAdmin):
    list_display = ("id", "title", "price", "in_publication")
    search_fields = ("=id",)


@register(Forum)
class ForumAdmin(ModelAdmin):
    list_display = ("Name", "Category", "Threads")
    search_fields = ("=Name",)


@register(Thread)
class ThreadAdmin(ModelAdmin):
    list_display = ("ForumName", "Subject", "LastPostedBy")
    search_fields = ("=ForumName", "^Subject")


@register(Reply)
class ReplyAdmin(ModelAdmin):
    list_display = ("Id", "ReplyDateTime", "PostedBy")
    search_fields = ("=Id",)


@register(Circuit)
class CircuitAdmin(ModelAdmin):
    list_display = ("PK", "SK", "state")


@register(Breaker)
class BreakerAdmin(ModelAdmin):
    list_display = ("PK", "SK", "amps")


@register(Startup)
class StartupAdmin(ModelAdmin):
    list_display = ("hashKey", "startupName", "version")


@register(Reading)
class ReadingAdmin(ModelAdmin):
    list_display = ("sensor", "taken", "plan", "price")
