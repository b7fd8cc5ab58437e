"""Attach a DynamoDB request meter to every HTTP request."""

from __future__ import annotations

from . import meter


class RequestMeterMiddleware:
    """Meter the request's DynamoDB calls; expose them as `request.dynamo_meter` and a header."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with meter.metered() as request_meter:
            request.dynamo_meter = request_meter
            response = self.get_response(request)
        response["X-DynamoDB-Calls"] = str(request_meter.count)
        response["X-DynamoDB-Capacity"] = (
            f"read={request_meter.read_units:g}; write={request_meter.write_units:g}"
        )
        response["Server-Timing"] = request_meter.as_header()
        return response
