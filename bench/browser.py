"""What a browser posts back from an HTML form, for the benchmarks that save admin pages.

Shared by Skillboard's side (bench/admin_pages.py) and the Django anchor (bench/anchor), so
both post the same kind of data: what a person's browser would send after changing one field.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser


class FormFields(HTMLParser):
    """Collect the name/value pairs a browser submits from the page's forms.

    As a browser does (the HTML standard's "constructing the entry list"): disabled controls
    are left out, an unchecked checkbox or radio sends nothing and a checked one without a
    value sends "on", a select sends its selected option or else its first, an option without
    a value sends its text, and a textarea drops the one newline right after `<textarea>`
    (the parser keeps it; Django's widget writes one there).
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._select_chosen = False
        self._option: str | None = None  # the select an option without a value belongs to
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "select":
            self._select = name if name and "disabled" not in a else None
            self._select_chosen = False
            return
        if tag == "option" and self._select:
            self.handle_option(a)
            return
        if not name or "disabled" in a:
            return
        if tag == "input" and a.get("type") not in ("submit", "button", "image", "reset", "file"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.data[name] = a.get("value", "on")
                return
            self.data[name] = a.get("value") or ""
        elif tag == "textarea":
            self._textarea = name
            self.data[name] = ""

    def handle_option(self, a: dict[str, str | None]) -> None:
        if self._select_chosen:
            return
        first = self._select not in self.data
        if "selected" in a or first:
            value = a.get("value")
            self.data[self._select] = value or ""
            self._option = self._select if value is None else None
        self._select_chosen = "selected" in a

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "option":
            self._option = None
        elif tag == "textarea" and self._textarea:
            text = self.data[self._textarea]
            # The HTML parser drops a newline right after <textarea>; html.parser keeps it.
            self.data[self._textarea] = text.removeprefix("\r\n").removeprefix("\n")
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data
        elif self._option:
            self.data[self._option] += data.strip()


def untouched_blank_rows(data: dict[str, str]) -> dict[str, str]:
    """Drop the inlines' blank extra rows, as a browser posts them when nobody typed in them."""
    data = dict(data)
    for key in [k for k in data if k.endswith("-INITIAL_FORMS")]:
        prefix, initial = key.removesuffix("-INITIAL_FORMS"), int(data[key])
        data[f"{prefix}-TOTAL_FORMS"] = str(initial)
        for name in list(data):
            match = re.fullmatch(rf"{re.escape(prefix)}-(\d+)-.*", name)
            if match and int(match.group(1)) >= initial:
                del data[name]
    return data


def change_form_data(html: str, **changes: str) -> dict[str, str]:
    """Return what a browser posts from a change page after typing `changes` and saving."""
    form = FormFields()
    form.feed(html)
    form.close()
    return untouched_blank_rows(form.data) | changes | {"_save": "Save"}
