"""The API's JSON: Ninja's, with every time written as the pages' JSON writes it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja.renderers import JSONRenderer
from ninja.responses import NinjaJSONEncoder

from dynamo.models import json_time


class TimestampEncoder(NinjaJSONEncoder):
    """Encode as Ninja does, a time as `json_time` writes it ("2026-12-04T13:45:00+00:00")."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return json_time(o)
        return super().default(o)


class TimestampRenderer(JSONRenderer):
    """Render the API's answers with TimestampEncoder."""

    encoder_class = TimestampEncoder
