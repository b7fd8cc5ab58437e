"""Plain PynamoDB models of ProductCatalog, Forum, Thread and Reply (attributes as stored)."""

from pynamodb.attributes import (
    BooleanAttribute,
    MapAttribute,
    NumberAttribute,
    NumberSetAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

# Set by the tests to their engine's endpoint, as a project's settings would.
HOST = "http://127.0.0.1:8000"


class SampleMeta:
    host = HOST
    region = "us-east-1"
    aws_access_key_id = "local"
    aws_secret_access_key = "local"


class ProductCatalog(Model):
    class Meta(SampleMeta):
        table_name = "ProductCatalog"

    id = NumberAttribute(hash_key=True, attr_name="Id")
    title = UnicodeAttribute(attr_name="Title")
    authors = UnicodeSetAttribute(null=True, attr_name="Authors")
    price = NumberAttribute(null=True, attr_name="Price")
    in_publication = BooleanAttribute(null=True, attr_name="InPublication")
    product_category = UnicodeAttribute(null=True, attr_name="ProductCategory")
    related_items = NumberSetAttribute(null=True, attr_name="RelatedItems")
    pictures = MapAttribute(null=True, attr_name="Pictures")


class Forum(Model):
    class Meta(SampleMeta):
        table_name = "Forum"

    Name = UnicodeAttribute(hash_key=True)
    Category = UnicodeAttribute(null=True)
    Threads = NumberAttribute(null=True)
    Messages = NumberAttribute(null=True)
    Views = NumberAttribute(null=True)


class Thread(Model):
    class Meta(SampleMeta):
        table_name = "Thread"

    ForumName = UnicodeAttribute(hash_key=True)
    Subject = UnicodeAttribute(range_key=True)
    Message = UnicodeAttribute(null=True)
    LastPostedBy = UnicodeAttribute(null=True)
    Views = NumberAttribute(null=True)
    Tags = UnicodeSetAttribute(null=True)


class PostedByMessageIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "PostedBy-Message-Index"
        projection = AllProjection()

    PostedBy = UnicodeAttribute(hash_key=True)
    Message = UnicodeAttribute(range_key=True)


class Reply(Model):
    class Meta(SampleMeta):
        table_name = "Reply"

    Id = UnicodeAttribute(hash_key=True)
    ReplyDateTime = UnicodeAttribute(range_key=True)
    Message = UnicodeAttribute(null=True)
    PostedBy = UnicodeAttribute(null=True)

    posted_by_message = PostedByMessageIndex()
