from dynamo_admin import ModelAdmin, TabularInline, register

from .models import Forum, ProductCatalog, Reply, Thread
from .single import Customer, Order, Payment, Refund, Setting, Shipment
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


# The single table `Shop` (samples/single.py): which items each admin serves.
class CustomerOrderInline(TabularInline):
    """A customer's orders: the item collection under the customer's PK."""

    model = Order
    fk_name = "PK"
    extra = 0


class CustomerShipmentInline(TabularInline):
    """An adjacency list: the shipments whose GSI1PK holds the customer's key."""

    model = Shipment
    fk_name = "GSI1PK"
    extra = 0


class CustomerEventInline(TabularInline):
    model = Payment
    fk_name = "PK"
    extra = 0


@register(Customer)
class CustomerAdmin(ModelAdmin):
    list_display = ("PK", "name", "email")
    search_fields = ("=PK",)
    key_prefixes = {"PK": "CUSTOMER#"}  # shown and searched by the customer's number
    item_condition = Customer.PK.startswith("CUSTOMER#") & (Customer.SK == "PROFILE")
    inlines = (CustomerOrderInline, CustomerEventInline, CustomerShipmentInline)


@register(Order)
class OrderAdmin(ModelAdmin):
    list_display = ("PK", "SK", "total", "status")
    item_condition = Order.SK.startswith("ORDER#") & (Order.GSI1PK == "ORDERS")


@register(Shipment)
class ShipmentAdmin(ModelAdmin):
    list_display = ("PK", "GSI1PK", "carrier")
    item_condition = Shipment.PK.startswith("SHIPMENT#") & (Shipment.SK == "SHIPMENT")


@register(Setting)
class SettingAdmin(ModelAdmin):
    list_display = ("SK", "value")
    item_condition = (Setting.PK == "SETTING") & Setting.SK.startswith("SETTING#")


@register(Payment)
class PaymentAdmin(ModelAdmin):
    list_display = ("PK", "SK", "amount", "method")


@register(Refund)
class RefundAdmin(ModelAdmin):
    list_display = ("PK", "SK", "amount", "reason")
