"""inspect_tables: names read from a table are data, and stay data in the code it writes.

Hostile table, attribute and index names (a docstring's end, line breaks, quotes, backslashes,
full-width letters Python folds to `Meta` or `save`, keywords, dunders, 255 characters, a
table named `Model`) go through the pure builders, a Hypothesis sample of names too, and
through the command over tables boto3 made on DynamoDB Local. The written modules compile,
run nothing of the data, map every stored name back exactly, keep PynamoDB's `Meta` and
`save`, and their admin passes Django's system checks.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect as pyinspect
import io
import itertools
import sys
import tokenize
import types
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.core import checks
from django.core.management import CommandError, call_command
from django.test import override_settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pynamodb.indexes import Index
from pynamodb.models import Model

from dynamo import local
from dynamo_admin import inspection
from dynamo_admin.management.commands.inspect_tables import Command
from dynamo_admin.permissions import registered_models

from .budget import examples
from .engines import point, tables_dropped_after
from .samples import models as samples

APP = "inspected_names"
FLAG = "INSPECTED_NAME_RAN"  # set on builtins by a payload, if the data ever ran as code
RUN = f'__import__("builtins").{FLAG} = True'
PAYLOADS = [
    f'"""; {RUN} #',  # the end of a docstring
    f"'''; {RUN} #",
    f'"; {RUN} #',
    f"x\n{RUN}\n#",  # a line break: the end of a comment
    f"x\r{RUN}",
    f"x\r\n{RUN}",
    f"x\u2028{RUN}",
    f"x\x0b\x0c\x1c\x1d\x1e\x85{RUN}",
    f"\\\n{RUN}",  # a line continued
]
FULL_META, FULL_SAVE = "\uff2deta", "\uff53ave"  # full-width: Python reads Meta and save
CONFUSABLES = [FULL_META, FULL_SAVE, "\uff51uery", "\ufb01le", "\uff2dodel"]
MEMBERS = ["Meta", "save", "update", "delete", "get", "query", "scan", "count", "refresh"]
MEMBERS += ["serialize", "DoesNotExist", "attribute_values", "_meta", "word_index"]
IMPORTED = ["Model", "UnicodeAttribute", "IncludeProjection", "GlobalSecondaryIndex"]
KEYWORDS = ["class", "None", "True", "def", "match", "case", "type", "_"]
DUNDERS = ["__init__", "__class__", "__dict__", "__secret", "a__b", "__"]
ODD = ['say "hi"', "it's", "both ' and \"", "bad\\N", "bad\\N{BULLET}", "\\", "ends in \\"]
ODD += ["a b", "a-b", "a_b", "a.b", "2fa", "ééé", "\x00nul", "x" * 255, "x" * 254 + "y"]
HOSTILE = PAYLOADS + CONFUSABLES + MEMBERS + IMPORTED + KEYWORDS + DUNDERS + ODD
MODULES = itertools.count()


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[Path]:
    """An installed app for the written modules, so that the admin can register their models."""
    root = tmp_path_factory.mktemp("names")
    (root / APP).mkdir()
    (root / APP / "__init__.py").write_text("")
    sys.path.insert(0, str(root))
    installed = override_settings(INSTALLED_APPS=[*settings.INSTALLED_APPS, APP])
    installed.enable()
    try:
        yield root / APP
    finally:
        installed.disable()
        for name in [n for n in sys.modules if n == APP or n.startswith(f"{APP}.")]:
            del sys.modules[name]
        sys.path.remove(str(root))


def table(
    name: str,
    keys: list[str],
    others: tuple[str, ...] | list[str] = (),
    indexes: tuple[tuple[str, str], ...] | list[tuple[str, str]] = (),
) -> inspection.Sampled:
    """A table as DescribeTable gives it (indexes: name, hash key) and one item of each name."""
    indexed = [key for _, key in indexes]
    described = {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": key, "KeyType": role}
            for key, role in zip(keys, ("HASH", "RANGE"), strict=False)
        ],
        "AttributeDefinitions": [
            {"AttributeName": key, "AttributeType": "S"} for key in dict.fromkeys(keys + indexed)
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": index,
                "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [*others][:3]},
            }
            for index, key in indexes
        ],
    }
    return inspection.Sampled(described, [{n: {"S": "x"} for n in [*keys, *indexed, *others]}])


def load(source: str, name: str) -> types.ModuleType:
    """Run a written module as an import does: compiled, in a fresh module's namespace."""
    module = types.ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    return module


@contextmanager
def registered(source: str, name: str) -> Iterator[list[checks.CheckMessage]]:
    """Run a written admin.py; yield the system checks' messages on it; unregister its models."""
    before = set(admin.site._registry)
    try:
        load(source, name)
        messages = checks.run_checks(tags=[checks.Tags.admin])
        yield [m for m in messages if getattr(m.obj, "__module__", None) == name]
    finally:
        for model in set(admin.site._registry) - before:
            admin.site.unregister(model)
            registered_models.remove(model)


def write_and_check(tables: list[inspection.Sampled]) -> dict[str, type[Model]]:
    """Write the models and admin of these tables, run both and assert they are data-proof.

    Return the written models by table name.
    """
    classes: set[str] = set()
    inspected = [inspection.inspect(sampled, classes) for sampled in tables]
    models_py = inspection.models_source(inspected, endpoint="http://127.0.0.1:8000")
    admin_py = inspection.admin_source(inspected)
    for source in (models_py, admin_py):
        assert_only_names_of_our_own(source)

    package = f"{APP}.written{next(MODULES)}"
    load("", package).__path__ = []
    module = load(models_py, f"{package}.models")
    assert not hasattr(builtins, FLAG)
    models = {
        value.Meta.table_name: value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Model) and value is not Model
    }
    assert set(models) == {t.name for t in tables}
    for sampled in tables:
        assert_stored_names_map_back(models[sampled.name], sampled)
    with registered(admin_py, f"{package}.admin") as messages:
        assert messages == []
        for model in models.values():  # listed by its keys
            keys = admin.site._registry[model].list_display
            stored = [model.get_attributes()[name].attr_name for name in keys]
            described = next(t.table for t in tables if t.name == model.Meta.table_name)
            assert stored == [k["AttributeName"] for k in described["KeySchema"]]
    return models


def assert_only_names_of_our_own(source: str) -> None:
    """Each name in the code is a short ASCII identifier; comments and docstrings are ASCII."""
    compile(source, "written.py", "exec")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME:
            assert token.string.isascii() and len(token.string) <= inspection.MAX_NAME
            assert token.string not in ("match", "case", "type", "_")
        if token.type == tokenize.COMMENT:
            assert token.string.isascii() and token.string.isprintable(), token.string
    tree = ast.parse(source)
    for node in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        docstring = ast.get_docstring(node, clean=False) or ""
        assert docstring.isascii(), docstring


def assert_stored_names_map_back(model: type[Model], sampled: inspection.Sampled) -> None:
    """Each stored name is one attribute's attr_name, exactly; each index keeps its name."""
    assert model.Meta.table_name == sampled.name
    attr_names = [a.attr_name for a in model.get_attributes().values()]
    assert sorted(attr_names) == sorted(sampled.items[0])
    described = {i["IndexName"]: i for i in sampled.table["GlobalSecondaryIndexes"]}
    indexes = [v for v in vars(model).values() if isinstance(v, Index)]
    assert sorted(i.Meta.index_name for i in indexes) == sorted(described)
    for index in indexes:
        key = described[index.Meta.index_name]["KeySchema"][0]["AttributeName"]
        assert [a.attr_name for a in index.Meta.attributes.values()] == [key]
    # PynamoDB's members are the model's own: no attribute took the name.
    assert isinstance(model.Meta, type) and model.save is Model.save
    assert issubclass(model.DoesNotExist, Model.DoesNotExist)
    for name in dir(Model):
        if name != "DoesNotExist" and not name.startswith("_"):
            assert pyinspect.getattr_static(model, name) is pyinspect.getattr_static(Model, name)


def test_hostile_attribute_names_are_written_as_literals_and_map_back_exactly(app):
    sampled = table(
        "events",
        keys=[PAYLOADS[0], FULL_META],
        others=[n for n in HOSTILE if n not in (PAYLOADS[0], FULL_META, FULL_SAVE, "class")],
        indexes=[(f"by-{i}", key) for i, key in enumerate([FULL_SAVE, "class", PAYLOADS[3]])],
    )

    (events,) = write_and_check([sampled]).values()

    attributes = {a.attr_name: name for name, a in events.get_attributes().items()}
    # Folded by NFKC, the full-width names are PynamoDB's: renamed; a key is named first.
    assert attributes[FULL_META] == "Meta_" and attributes["Meta"] == "Meta_2"
    assert attributes["save"] == "save_" and attributes[FULL_SAVE] == "save_2"
    assert attributes["None"] == "None_" and attributes["class"] == "class_2"  # __class__ first
    assert attributes["a_b"] == "a_b"  # kept: a renamed "a b" takes another name
    assert attributes["a b"] not in ("a_b", "a b")
    assert attributes["__init__"] == "init" and attributes["__secret"] == "secret"
    assert attributes["ééé"] == "eee" and attributes["\ufb01le"] == "file"
    # 255 characters: cut to 60, the second one numbered.
    assert {attributes["x" * 255], attributes["x" * 254 + "y"]} == {"x" * 60, "x" * 59 + "2"}


def test_hostile_table_and_index_names_give_classes_that_shadow_nothing(app):
    names = ["Model", "model", "\uff2dodel", "ModelAdmin", "register", "None", "Meta"]
    names += ["UnicodeAttribute", "x" * 255, "x" * 254 + "y", *PAYLOADS, "ééé", "2024"]
    tables = [
        table(name, keys=["id"], others=["Model"], indexes=[(name, "id"), (f"{name}Index", "id")])
        for name in names
    ]

    models = write_and_check(tables)

    assert models["Model"].__name__ == "Model2"  # the import keeps its name
    assert models["ModelAdmin"].__name__ == "ModelAdmin2"  # as the admin.py imports it
    assert len({m.__name__.lower() for m in models.values()}) == len(names)
    assert all(len(m.__name__) <= inspection.MAX_NAME for m in models.values())


def test_a_renamed_attribute_says_why_in_a_comment_without_its_name():
    sampled = table("t", keys=["class"], others=[PAYLOADS[3], FULL_SAVE])
    source = inspection.models_source([inspection.inspect(sampled, set())])

    assert "    # Attribute renamed because it was a Python keyword.\n" in source
    assert '    class_ = UnicodeAttribute(hash_key=True, attr_name="class")\n' in source
    assert "attr_name='x\\n__import__" in source  # the newline as its escape, in a literal
    assert "# Attribute renamed because it was not an ASCII Python identifier; PynamoDB" in source
    assert f'    save_ = UnicodeAttribute(attr_name="{FULL_SAVE}")\n' in source


def test_the_admin_stub_searches_the_partition_key_by_its_python_name(app):
    tables = [table("team-events", keys=["team id", "at"]), table("odd", keys=["=x"])]

    write_and_check(tables)  # its system checks pass (dynamo_admin.E002 named none)

    source = inspection.admin_source([inspection.inspect(t, set()) for t in tables])
    assert '    list_display = ("team_id", "at")\n    search_fields = ("=team_id",)\n' in source
    assert 'search_fields = ("=x",)' in source  # "=x" stored, `x` in Python


names = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12),
    st.text(
        st.sampled_from("aZ_1 .-\"'\\\n\r\u2028\x85\uff2d\uff53\uff21é"), min_size=1, max_size=12
    ),
    st.sampled_from(HOSTILE),
)


@hypothesis_settings(max_examples=examples(50), deadline=None)
@given(
    table_name=names,
    stored=st.lists(names, min_size=2, max_size=7, unique=True),
    index_name=names,
)
def test_generated_names_are_written_as_literals_and_map_back_exactly(
    app, table_name, stored, index_name
):
    keys, others = stored[:2], stored[2:]
    sampled = table(
        table_name, keys=keys, others=others, indexes=[(index_name, others[0])] if others else []
    )

    write_and_check([sampled])


def test_a_module_that_does_not_compile_is_refused_and_nothing_is_printed():
    out = StringIO()
    command = Command(stdout=out)

    with pytest.raises(CommandError, match=r"The models\.py written from these tables does not"):
        command.write_source("class (:\n", "models.py")
    assert out.getvalue() == ""


def test_the_sample_product_catalog_admin_passes_the_system_checks():
    # It searches "=id", the key's Python name ("Id" as stored), as Django names a field.
    assert admin.site._registry[samples.ProductCatalog].check() == []


# --- the command, over tables boto3 made on DynamoDB Local -------------------------------------


@pytest.fixture(scope="module")
def hostile_tables(dynamodb_local, tmp_path_factory) -> Iterator[tuple[local.Engine, Path]]:
    """Two tables named Model and ModelAdmin whose names would run a shell command as code."""
    sentinel = tmp_path_factory.mktemp("sentinel") / "ran"
    shell = f'"""; import os; os.system("touch {sentinel}") #'
    with tables_dropped_after(dynamodb_local) as engine:
        engine.client.create_table(
            TableName="Model",
            KeySchema=[
                {"AttributeName": shell, "KeyType": "HASH"},
                {"AttributeName": FULL_META, "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": shell, "AttributeType": "S"},
                {"AttributeName": FULL_META, "AttributeType": "S"},
                {"AttributeName": FULL_SAVE, "AttributeType": "S"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "Model.Index-by_save",
                    "KeySchema": [
                        {"AttributeName": FULL_SAVE, "KeyType": "HASH"},
                        {"AttributeName": shell, "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        engine.client.create_table(
            TableName="ModelAdmin",
            KeySchema=[{"AttributeName": "team id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "team id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        item = {name: {"S": f"value of {name}"} for name in [shell, FULL_META, FULL_SAVE, *HOSTILE]}
        engine.client.put_item(TableName="Model", Item=item)
        engine.client.put_item(TableName="ModelAdmin", Item={"team id": {"S": "t1"}})
        yield engine, sentinel


def test_the_command_writes_hostile_tables_as_models_whose_admin_passes_the_checks(
    app, hostile_tables
):
    engine, sentinel = hostile_tables

    def inspect_tables(*args: str) -> str:
        out = StringIO()
        call_command(
            "inspect_tables",
            *args,
            "Model",
            "ModelAdmin",
            "--endpoint-url",
            engine.endpoint,
            stdout=out,
        )
        return out.getvalue()

    package = app / "from_command"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(inspect_tables())
    (package / "admin.py").write_text(inspect_tables("--admin"))

    written = importlib.import_module(f"{APP}.from_command.models")
    assert not sentinel.exists()
    models = {m.Meta.table_name: m for m in (written.Model2, written.ModelAdmin2)}
    for model in models.values():
        model.Meta.region = "us-east-1"
        model.Meta.aws_access_key_id = model.Meta.aws_secret_access_key = "local"
    point(models.values(), engine.endpoint)
    # Read back through the model: every stored name is an attribute's attr_name, exactly.
    (item,) = models["Model"].scan()
    stored = engine.client.scan(TableName="Model")["Items"][0]
    read = {a.attr_name: getattr(item, name) for name, a in item.get_attributes().items()}
    assert read == {name: value["S"] for name, value in stored.items()}
    assert models["Model"].save is Model.save and models["Model"].Meta.table_name == "Model"
    (by_save,) = models["Model"].model_index_by_save_index.query(f"value of {FULL_SAVE}")
    assert by_save.Meta_ == f"value of {FULL_META}"
    with registered((package / "admin.py").read_text(), f"{APP}.from_command.admin") as errors:
        assert errors == []
    assert not sentinel.exists()
