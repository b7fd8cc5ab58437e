"""Read a page's form as a browser would post it (the project's tests use it too)."""

from __future__ import annotations

from html.parser import HTMLParser


class FormFields(HTMLParser):
    """Collect the name and current value of every field of a page's main form."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.fields[name] = a.get("value", "on" if a.get("type") == "checkbox" else "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""
        elif tag == "select" and name:
            self._select = name
            self.fields.setdefault(name, "")
        elif (
            tag == "option" and self._select and ("selected" in a or not self.fields[self._select])
        ):
            self.fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] += data


def form_fields(client, url: str) -> dict[str, str]:
    parser = FormFields()
    parser.feed(client.get(url).content.decode())
    parser.fields.pop("csrfmiddlewaretoken", None)
    return parser.fields
