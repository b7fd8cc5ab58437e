"""The sidebar's app list, rendered once per distinct list, page section and language.

Django renders admin/app_list.html into the sidebar of every admin page: the same HTML for
every page under one model, for every staff member whose permissions give the same list.
With a dozen models that is a tenth of a change page's time. The list itself is still built
for each request (each permission checked as Django does); only its rendering is kept, in a
small store per process, under everything the template reads: the list's entries, which of
them the page is under, and the language. With DEBUG on, it renders every time (a changed
template shows at once).
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

from django import template
from django.conf import settings
from django.template.defaultfilters import urlencode
from django.utils.translation import get_language

register = template.Library()

# Renderings kept per process: a few for each model and distinct set of permissions.
KEPT = 512
_kept: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_lock = Lock()


def rendering_key(app_list: list[dict[str, Any]], path: str) -> tuple[Any, ...]:
    """Return what admin/app_list.html reads: each entry, whether the path is under it, the
    language."""
    quoted = urlencode(path)

    def under(url: Any) -> bool:
        return isinstance(url, str) and url in quoted

    apps = tuple(
        (
            app["app_label"],
            str(app["name"]),
            app["app_url"],
            under(app["app_url"]),
            tuple(
                (
                    model["object_name"],
                    str(model["name"]),
                    model.get("admin_url"),
                    model.get("add_url"),
                    bool(model.get("view_only")),
                    under(model.get("admin_url")),
                )
                for model in app["models"]
            ),
        )
        for app in app_list
    )
    return (get_language(), apps)


@register.simple_tag(takes_context=True)
def sidebar_app_list(context, app_list: list[dict[str, Any]]) -> str:
    """Render admin/app_list.html for the sidebar (no change links), once per key."""
    request = context.get("request")
    key = rendering_key(app_list, request.path if request is not None else "")
    if not settings.DEBUG:
        with _lock:
            html = _kept.get(key)
            if html is not None:
                _kept.move_to_end(key)
                return html
    app_list_template = context.template.engine.get_template("admin/app_list.html")
    with context.push(app_list=app_list, show_changelinks=False):
        html = app_list_template.render(context)
    if not settings.DEBUG:
        with _lock:
            _kept[key] = html
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return html
