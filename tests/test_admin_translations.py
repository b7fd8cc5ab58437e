"""Every sentence dynamo_admin shows goes through gettext, with Django's msgids where it can."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dynamo_admin.models import AdminLog

# Words and translations: nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")

APP = Path(__file__).resolve().parent.parent / "dynamo_admin"
TRANSLATING = {
    "_",
    "gettext",
    "gettext_lazy",
    "gettext_noop",
    "ngettext",
    "pgettext",
    "format_lazy",
}
# Django translates neither its system checks nor its commands' output, nor errors meant for
# the programmer (ValueError, TypeError, a lookup of what is not installed, a misconfiguration).
UNTRANSLATED_CALLS = {
    "ValueError",
    "TypeError",
    "NotImplementedError",
    "LookupError",
    "AttributeError",
    "ImproperlyConfigured",
}
# A shell command reads the same in every language.
COMMAND = re.compile(r"^python manage\.py ")
# Nor does a piece of a DynamoDB expression or a PartiQL statement: code, not prose.
EXPRESSION = re.compile(r"^\s*(?:AND|OR|NOT|INSERT INTO|SELECT|UPDATE|DELETE FROM)\b")
PROSE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")
# Nor is HTML markup built in Python (a result row's cells): its tags are taken out as the
# templates' scan takes them out; a piece of an f-string may end inside a tag.
MARKUP = re.compile(r"<[^>]*(?:>|$)")


def shown_strings_outside_gettext(path: Path) -> list[str]:
    """Return the prose string literals of a module that no gettext call wraps."""
    tree = ast.parse(path.read_text())
    parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = {
        node.body[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if node in docstrings or not PROSE.search(MARKUP.sub(" ", node.value)):
            continue
        if COMMAND.match(node.value) or EXPRESSION.match(node.value):
            continue
        outer = parent.get(node)
        while isinstance(outer, ast.JoinedStr | ast.FormattedValue | ast.BinOp):
            outer = parent.get(outer)
        if isinstance(outer, ast.Call):
            name = getattr(outer.func, "id", getattr(outer.func, "attr", ""))
            if name in TRANSLATING | UNTRANSLATED_CALLS:
                continue
        found.append(f"{path.relative_to(APP)}:{node.lineno}: {node.value!r}")
    return found


def test_every_sentence_in_the_python_goes_through_gettext():
    modules = [
        path
        for path in APP.rglob("*.py")
        # The app's own tests and their toy library are shown to no one; inspection writes
        # Python source for a programmer, as the checks speak to one.
        if not {"management", "tests"} & set(path.parts)
        and path.name not in ("checks.py", "inspection.py")
    ]

    assert modules
    assert [line for path in modules for line in shown_strings_outside_gettext(path)] == []


def text_outside_translation(template: str) -> list[str]:
    """Return the words of a template that neither a translate tag nor a variable produces."""
    text = re.sub(r"{%\s*blocktranslate\b.*?{%\s*endblocktranslate\s*%}", "", template, flags=re.S)
    text = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", text, flags=re.S)
    text = re.sub(r"{%\s*block bodyclass\s*%}.*?{%\s*endblock\s*%}", "", text)  # CSS classes
    attributes = re.findall(r'\b(?:title|alt|aria-label|placeholder)="([^"]*)"', text)
    attributes += re.findall(r'<input [^>]*type="submit"[^>]*value="([^"]*)"', text)
    text = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", "", " ".join([text, *attributes]), flags=re.S)
    text = re.sub(r"<[^>]*>|&#?\w+;", " ", text)
    return re.findall(r"[A-Za-z]{2,}", text)


@pytest.mark.parametrize(
    "template", sorted(APP.glob("templates/**/*.html")), ids=lambda path: path.name
)
def test_every_word_of_the_templates_is_translated(template):
    assert text_outside_translation(template.read_text()) == []


def test_the_scan_of_templates_finds_an_untranslated_word():
    template = '<p title="Look">{% translate "Fine" %} Oops</p><input type="submit" value="Go">'
    assert text_outside_translation(template) == ["Oops", "Look", "Go"]


def test_the_change_and_list_pages_speak_the_sites_language(admin_client_, python, settings):
    settings.LANGUAGE_CODE = "fr"

    change = admin_client_.get("/admin/catalog/skill/python/change/").content.decode()
    listing = admin_client_.get("/admin/catalog/skill/").content.decode()
    empty = admin_client_.post("/admin/catalog/skill/", {"action": "delete_selected"}, follow=True)

    assert "<title>python | Modification de skill |" in change
    assert 'value="Enregistrer" class="default" name="_save"' in change
    assert 'class="deletelink">Supprimer</a>' in change
    assert "Sélectionnez l\u2019objet skill à changer" in listing
    assert "<label>Action\xa0: <select" in listing and "0 sur 1 sélectionné" in listing
    assert "Aucun élément n\u2019a été modifié." in empty.content.decode()


def test_the_log_is_named_as_djangos_log_in_the_sites_language(settings):
    settings.LANGUAGE_CODE = "fr"

    assert str(AdminLog.verbose_name_plural) == "entrées d\u2019historique"
