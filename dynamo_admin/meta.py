"""A model's options as Django's admin reads them from `_meta`, for any PynamoDB model.

A `DynamoModel` names its app, model and verbose names itself; a plain `pynamodb.models.Model`
gets them as Django derives a model's: the app from the installed app whose module holds it,
the names from the class (`InPublication` → "in publication"). Nothing is set on the model
class but the `_meta` a registration gives it, as Django's own models carry one.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.utils.text import camel_case_to_spaces
from pynamodb.attributes import Attribute, VersionAttribute
from pynamodb.models import Model

from dynamo.models import DynamoModel


class ModelOpts:
    """What Django's admin (its site, views and templates) reads from `_meta` or `opts`."""

    # A DynamoDB model is never abstract, swapped or keyed by a composite Django pk.
    abstract = False
    swapped = None
    is_composite_pk = False

    def __init__(self, model: type[Model], admin_class: type | None = None) -> None:
        self.model = model
        self.object_name = model.__name__
        self.app_label = own(model, "app_label") or app_label_of(model)
        self.model_name = own(model, "model_name") or model.__name__.lower()
        words = camel_case_to_spaces(model.__name__)
        model_verbose = own(model, "verbose_name") or words
        model_plural = own(model, "verbose_name_plural") or f"{model_verbose}s"
        # The admin may name the model its own way (learners beside Django's users); its app
        # label and model name, hence its URLs and permissions, stay the model's.
        admin_verbose = getattr(admin_class, "verbose_name", None)
        self.verbose_name = admin_verbose or model_verbose
        self.verbose_name_plural = (
            getattr(admin_class, "verbose_name_plural", None)
            or (f"{admin_verbose}s" if admin_verbose else "")
            or model_plural
        )
        attributes = model.get_attributes()
        # Python names, hash key first (a key's stored name may differ: its attr_name). By
        # PynamoDB's names, not the flags: a subclass may redeclare a key without them.
        self.key_names = [n for n in (model._hash_keyname, model._range_keyname) if n]
        self.keys_declared_by = keys_declared_by(model)
        # False for a class no class of its family gives a hash key (a discriminator family's
        # base): PynamoDB scans with it but refuses every keyed call (dynamo_admin.E014).
        schema = self.keys_declared_by._get_schema()["key_schema"]
        self.keyed = any(key["KeyType"] == "HASH" for key in schema)
        self.version_name = next(
            (name for name, a in attributes.items() if isinstance(a, VersionAttribute)), None
        )
        self.field_choices: dict[str, tuple[str, ...]] = own(model, "field_choices") or {}
        self.field_labels: dict[str, str] = own(model, "field_labels") or {}
        self.references: dict[str, type[Model]] = own(model, "references") or {}
        # Which items of a shared table are the model's (dynamo_admin.claims), as its admin says.
        self.item_condition = getattr(admin_class, "item_condition", None)
        discriminator = model._get_discriminator_attribute()
        self.discriminator_name = (
            next(name for name, a in attributes.items() if a is discriminator)
            if discriminator is not None
            else None
        )

    @property
    def app_config(self):
        return apps.get_app_config(self.app_label)

    def __str__(self) -> str:
        return f"{self.app_label}.{self.model_name}"


def keys_declared_by(model: type[Model]) -> type[Model]:
    """Return the class of the model's family whose own table schema holds the model's keys.

    A discriminated subclass may redeclare a key attribute without `hash_key=True` (to give it
    a default): PynamoDB still keys it by name, but a connection made from the subclass's own
    schema has no hash key and refuses every call ("No hash_key found in key schema").
    """
    if model._hash_keyname is None:
        return model  # a class declaring no key at all: no ancestor holds one either
    hash_key = model.get_attributes()[model._hash_keyname].attr_name
    for cls in model.__mro__:
        if isinstance(cls, type) and issubclass(cls, Model) and cls is not Model:
            schema = cls._get_schema()["key_schema"]
            if {"KeyType": "HASH", "AttributeName": hash_key} in schema:
                return cls
    return model


def share_keyed_connection(model: type[Model]) -> None:
    """Give a model whose own schema lacks its keys the connection of the class declaring them.

    PynamoDB does the same when that class was used first (the subclass inherits its
    connection); the admin does not leave it to the order of calls.
    """
    keyed = meta(model).keys_declared_by
    if keyed is not model:
        connection = keyed._get_connection()
        if model._connection is not connection:
            model._connection = connection


def own(model: type[Model], name: str) -> Any:
    """Return an option a DynamoModel declares (app_label, verbose_name...), else None."""
    return getattr(model, name, None) if issubclass(model, DynamoModel) else None


def app_label_of(model: type[Model]) -> str:
    """Return the label of the installed app whose module holds the model, as Django finds it."""
    config = apps.get_containing_app_config(model.__module__)
    if config is None:
        raise LookupError(
            f"{model.__module__}.{model.__name__} is in no installed app: add its app to "
            "INSTALLED_APPS."
        )
    return config.label


_made: dict[type[Model], ModelOpts] = {}


def meta(model: type[Model]) -> ModelOpts:
    """Return the model's options: its registration's `_meta`, else ones derived once."""
    registered = model.__dict__.get("_meta")
    if isinstance(registered, ModelOpts):
        return registered
    if model not in _made:
        _made[model] = ModelOpts(model)
    return _made[model]


def pk_of(item: Model) -> tuple[Any, ...]:
    """Return the item's key values, hash key first."""
    return tuple(getattr(item, name) for name in meta(type(item)).key_names)


def label_of(item: Model) -> str:
    """Return how the admin names an item: its own `__str__`, else its key values.

    PynamoDB's own text of an item lists every attribute; a page title, a message or a log
    entry names the item as Django's admin names a row, by what identifies it. A `__str__`
    that names nothing (None, not text, empty) or raises falls back to the key values too.
    """
    own_str = type(item).__str__
    if own_str is not object.__str__:
        try:
            text = own_str(item)
        except Exception:  # a key-only item (History) lacks what the model's text reads
            text = None
        if isinstance(text, str) and text:
            return text
    return " / ".join(str(value) for value in pk_of(item))


def version_of(item: Model) -> int | None:
    """Return the item's VersionAttribute value (None where the model declares none)."""
    name = meta(type(item)).version_name
    return getattr(item, name) if name else None


def field_label(model: type[Model] | None, name: str) -> str:
    """Return an attribute's verbose name: the model's `field_labels` entry, else its name."""
    labels = meta(model).field_labels if model is not None else {}
    return labels.get(name) or name.replace("_", " ")


def attribute_name(model: type[Model], attribute: Attribute) -> str:
    """Return the Python name of one of the model's attributes."""
    return next(name for name, a in model.get_attributes().items() if a is attribute)


# Attributes a DynamoModel writes itself: shown, never edited.
AUTOMATIC_FIELDS = ("created_at", "updated_at", "version")


def automatic_fields(model) -> list[str]:
    """Return the attributes the model or PynamoDB writes: shown, never edited.

    A DynamoModel's timestamps and version; any model's VersionAttribute and discriminator
    (an attribute merely named `version` is the model's own data).
    """
    opts = meta(model)
    names = list(AUTOMATIC_FIELDS) if issubclass(model, DynamoModel) else []
    names += [n for n in (opts.version_name, opts.discriminator_name) if n and n not in names]
    return names
