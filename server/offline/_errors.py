"""TomTom's error bodies, one shape per service, so clients meet the shapes they will in production.

Every refusal the emulation makes is a bad request (`server.errors.OfflineBadRequest`),
rendered here in the shape of the service that raised it.
"""

from __future__ import annotations

from typing import Literal

import orjson

Service = Literal["search", "routing", "traffic", "gateway"]

ROUTING_FORMAT_VERSION = "0.0.12"


def error_body(
    service: Service,
    status: int,
    message: str,
    *,
    code: str | None = None,
    target: str | None = None,
) -> bytes:
    """The JSON body TomTom's `service` answers with for an error of `status`."""
    if service == "routing":
        body: dict[str, object] = {
            "formatVersion": ROUTING_FORMAT_VERSION,
            "error": {"description": message},
            "detailedError": {"code": code or "INVALID_REQUEST", "message": message},
        }
    elif service == "search":
        detailed: dict[str, object] = {"code": code or "BadArgument", "message": message}
        if target:
            detailed["target"] = target
        body = {"errorText": message, "detailedError": detailed, "httpStatusCode": status}
    elif service == "traffic":
        body = {
            "detailedError": {"code": code or "INVALID_REQUEST", "message": message},
            "httpStatusCode": status,
        }
    else:
        body = {"detailedError": {"code": code or "Error", "message": message}}
    return orjson.dumps(body)


def service_of(path: str) -> Service:
    """Which service's error shape a path answers with."""
    if path.startswith("/routing/"):
        return "routing"
    if path.startswith("/search/"):
        return "search"
    if path.startswith("/traffic/"):
        return "traffic"
    return "gateway"
