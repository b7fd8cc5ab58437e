from dynamo_admin import ModelAdmin, TabularInline, register

from .models import Customer, Order, OrderLine


class OrderInline(TabularInline):
    model = Order
    fk_name = "PK"  # the shared hash key: this customer's orders, one Query
    fields = ("SK", "placed_on", "status", "total")
    extra = 0


class OrderLineInline(TabularInline):
    model = OrderLine
    fk_name = "PK"
    fields = ("SK", "product", "quantity", "price")
    extra = 1


@register(Customer)
class CustomerAdmin(ModelAdmin):
    list_display = ("PK", "name", "email")
    search_fields = ("=PK",)
    key_prefixes = {"PK": "CUSTOMER#"}  # shown and searched by the customer's number
    item_condition = (Customer.GSI1PK == "CUSTOMERS") & (Customer.SK == "PROFILE")
    inlines = (OrderInline, OrderLineInline)


@register(Order)
class OrderAdmin(ModelAdmin):
    list_display = ("PK", "SK", "placed_on", "status", "total")
    item_condition = (Order.GSI1PK == "ORDERS") & Order.SK.startswith("ORDER#")


@register(OrderLine)
class OrderLineAdmin(ModelAdmin):  # its discriminator says which items are lines
    list_display = ("PK", "SK", "product", "quantity", "price")
    item_condition = OrderLine.SK.startswith("LINE#")
