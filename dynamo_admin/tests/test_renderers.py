"""The form renderer that keeps blank widgets: Django's HTML, each blank widget rendered once."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.admin import widgets as admin_widgets
from django.forms.renderers import DjangoTemplates as DjangosRenderer
from django.utils.safestring import mark_safe
from django.utils.translation import override

from dynamo_admin import renderers

from .pages import with_each_renderer

F1 = "/admin/library/shelf/F1/change/"


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """Empty the kept renderings; return the templates our renderer loads from now on."""
    monkeypatch.setattr(renderers, "_kept", type(renderers._kept)())
    loaded: list[str] = []
    load = renderers.DjangoTemplates.get_template

    def get_template(self, name):
        loaded.append(name)
        return load(self, name)

    monkeypatch.setattr(renderers.DjangoTemplates, "get_template", get_template)
    return loaded


def both(widget: forms.Widget, name: str, value=None, attrs=None) -> tuple[str, str]:
    """Render a widget with our renderer and with Django's."""
    ours = widget.render(name, value, attrs, renderer=renderers.DjangoTemplates())
    return ours, widget.render(name, value, attrs, renderer=DjangosRenderer())


BLANK_WIDGETS = [
    forms.TextInput(attrs={"size": 10}),
    forms.HiddenInput(),
    forms.CheckboxInput(),
    forms.Textarea(attrs={"rows": 3}),
    forms.Select(choices=[("", "---------"), ("Expert", "Expert")]),
    admin_widgets.AdminSplitDateTime(),
]


@pytest.mark.parametrize("widget", BLANK_WIDGETS, ids=lambda w: type(w).__name__)
def test_a_blank_widget_renders_as_djangos_once(widget, counted):
    first, djangos = both(widget, "book-__prefix__-title")
    loads = len(counted)
    again, _ = both(widget, "book-__prefix__-title")

    assert first == again == djangos
    assert loads >= 1 and len(counted) == loads  # the second time loaded no template


def test_a_widget_showing_a_value_renders_every_time(counted):
    widget = forms.Select(choices=[("", "---------"), ("Expert", "Expert")])

    first, djangos = both(widget, "level", "Expert")
    loads = len(counted)
    again, _ = both(widget, "level", "Expert")

    assert first == again == djangos and 'value="Expert" selected' in first
    assert len(counted) == 2 * loads


@pytest.mark.parametrize(
    "attrs",
    [
        [{"data-x": True}, {"data-x": 1}, {"data-x": "1"}, {"data-x": False}],
        [{"step": 1.0}, {"step": "1.00"}, {"step": 1}],
        [{"a": "1", "b": "2"}, {"b": "2", "a": "1"}],  # written in their order
    ],
)
def test_contexts_that_render_differently_are_never_one(attrs, counted):
    rendered = [both(forms.TextInput(), "q", attrs=a) for a in attrs]

    # Kept under one key, a later context would get an earlier one's HTML, not Django's.
    assert [ours for ours, _ in rendered] == [djangos for _, djangos in rendered]
    assert len({djangos for _, djangos in rendered}) > 1


def test_a_safe_label_and_an_escaped_one_are_kept_apart(counted):
    plain = forms.Select(choices=[("", "<b>bold</b>")])
    safe = forms.Select(choices=[("", mark_safe("<b>bold</b>"))])

    escaped, djangos_escaped = both(plain, "q")
    raw, djangos_raw = both(safe, "q")

    assert (escaped, raw) == (djangos_escaped, djangos_raw)
    assert "&lt;b&gt;" in escaped and "<b>bold</b>" in raw


def test_each_language_gets_its_own_labels(counted):
    widget = admin_widgets.AdminSplitDateTime()

    with override("fr"):
        french, djangos_french = both(widget, "at")
    english, djangos_english = both(widget, "at")

    assert (french, english) == (djangos_french, djangos_english)
    assert french != english


def test_with_debug_on_every_widget_renders_each_time(counted, settings):
    settings.DEBUG = True

    both(forms.TextInput(), "q")
    loads = len(counted)
    both(forms.TextInput(), "q")

    assert len(counted) == 2 * loads


def test_the_store_keeps_at_most_its_size(counted, monkeypatch):
    monkeypatch.setattr(renderers, "KEPT", 3)

    for n in range(10):
        both(forms.TextInput(), f"row-{n}")

    assert len(renderers._kept) == 3


def test_the_change_page_is_the_same_html_as_with_djangos_renderer(
    librarian, fiction, counted, settings
):
    djangos, first, again = with_each_renderer(librarian, F1, settings)

    assert 'id="book-empty"' in djangos  # the empty row inlines.js copies
    assert first == again == djangos
    assert renderers._kept  # its blank widgets were kept
