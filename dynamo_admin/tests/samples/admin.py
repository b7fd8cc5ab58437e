from dynamo_admin import ModelAdmin, register

from .models import Forum, ProductCatalog, Reply, Thread


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
