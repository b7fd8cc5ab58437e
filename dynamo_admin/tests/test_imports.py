"""dynamo_admin's modules import each other without a circle, lazy imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import dynamo_admin

PACKAGE = Path(dynamo_admin.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def imported_names(
    tree: ast.AST, name: str, is_package: bool, type_hints: bool = False
) -> set[str]:
    """Return the modules an import in this tree names, at any depth; type hints' if asked."""
    found: set[str] = set()
    here = name if is_package else name.rpartition(".")[0]
    pending = [tree]
    while pending:
        node = pending.pop()
        if is_type_checking_block(node) and not type_hints:
            pending.extend(node.orelse)  # only the `else:` branch runs
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (
                (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            )
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from . import x`
        pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph(type_hints: bool = False) -> dict[str, set[str]]:
    """Return each dynamo_admin module (its tests left out) and the dynamo_admin ones it imports."""
    paths = [p for p in PACKAGE.rglob("*.py") if "tests" not in p.relative_to(PACKAGE).parts]
    modules = {module_name(path): path for path in paths}
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        names = imported_names(tree, name, path.name == "__init__.py", type_hints)
        # The package root imports nothing when loaded (its public names come on first use),
        # and every submodule's import runs it first: an edge to it closes no circle.
        graph[name] = {n for n in names if n in modules and n not in (name, "dynamo_admin")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return one circle through each module that is on one (depth-first, as Python imports)."""
    found, done = [], set()

    def visit(name: str, stack: list[str]) -> None:
        if name in stack:
            found.append([*stack[stack.index(name) :], name])
            return
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*stack, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    return found


def test_the_import_graph_sees_the_package_s_modules_and_their_imports():
    graph = import_graph()
    assert "dynamo_admin.options" in graph and "dynamo_admin.views.changelist" in graph
    assert "dynamo_admin.checks" in graph["dynamo_admin.options"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    hinted = ast.parse("if TYPE_CHECKING:\n    import x\n")
    assert imported_names(hinted, "m", False) == set()
    assert imported_names(hinted, "m", False, type_hints=True) == {"x"}


def test_no_dynamo_admin_module_imports_itself_through_others():
    assert cycles(import_graph()) == []


def test_only_type_hints_naming_the_model_admin_close_a_circle():
    # The changelist, checks, inlines and helpers name DynamoModelAdmin, DynamoInline or
    # BaseDynamoAdmin in hints, imported under TYPE_CHECKING: never at run time.
    circles = cycles(import_graph(type_hints=True))
    assert all("dynamo_admin.options" in circle for circle in circles), circles


def test_dynamo_admin_modules_import_each_other_at_the_top_not_inside_functions():
    lazy = []
    for path in PACKAGE.rglob("*.py"):
        if "tests" in path.relative_to(PACKAGE).parts or path.name == "apps.py":
            continue  # AppConfig.ready() imports once the apps are loaded, as Django's do
        for function in ast.walk(ast.parse(path.read_text())):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                if path == PACKAGE / "__init__.py" and function.name == "__getattr__":
                    continue  # the public names, imported once Django's apps are loaded
                names = imported_names(function, module_name(path), path.name == "__init__.py")
                if any(name.startswith("dynamo_admin") for name in names):
                    lazy.append(f"{module_name(path)}.{function.name}")
    assert lazy == []


def test_the_public_names_stay_importable():
    from dynamo import indexes
    from dynamo.models import DynamoMeta, DynamoModel
    from dynamo_admin.apps import AdminConfig
    from dynamo_admin.decorators import register
    from dynamo_admin.options import BaseDynamoAdmin, DynamoModelAdmin, TabularInline

    assert issubclass(DynamoModelAdmin, BaseDynamoAdmin) and callable(register)
    assert issubclass(TabularInline, BaseDynamoAdmin)
    assert AdminConfig.default_site == "dynamo_admin.sites.DynamoAdminSite"
    assert indexes.GlobalIndex and issubclass(DynamoMeta, object) and DynamoModel.registry
