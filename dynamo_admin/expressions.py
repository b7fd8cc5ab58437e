"""Placeholders of one DynamoDB request's expressions: `#n0` for names, `:v0` for values.

Any attribute name (a reserved word, a dot, a space) and any value go through placeholders,
so nothing a page is given is ever spliced into an expression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Expression:
    """The names and values one request's expressions refer to."""

    names: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def name(self, attribute: str) -> str:
        """Return the placeholder of an attribute name (the same one each time)."""
        for placeholder, name in self.names.items():
            if name == attribute:
                return placeholder
        placeholder = f"#n{len(self.names)}"
        self.names[placeholder] = attribute
        return placeholder

    def value(self, typed: dict[str, Any]) -> str:
        """Return a new placeholder for a typed value (the client's form)."""
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = typed
        return placeholder

    def into(self, request: dict[str, Any]) -> dict[str, Any]:
        """Add the names and values to a request, and return it."""
        if self.names:
            request["ExpressionAttributeNames"] = self.names
        if self.values:
            request["ExpressionAttributeValues"] = self.values
        return request
