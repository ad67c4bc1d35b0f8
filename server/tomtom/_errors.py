"""What a failed TomTom request becomes: a tool error the model can act on.

    TomTomError (mcp ToolError: the model reads the message, never a protocol error)
    ├── MissingKeyError          no key for the request and OFFLINE=never (nothing was sent)
    ├── InvalidKeyError          401/403: key missing, invalid, inactive or not entitled
    ├── RateLimitError           429: quota or queries-per-second limit (Retry-After quoted)
    ├── BadRequestError          other 4xx: TomTom's own description quoted
    ├── UpstreamTimeoutError     no answer within the client's timeout
    └── UpstreamUnavailableError 5xx, connection failure, or a body that is not JSON

Every message is scrubbed of the caller's key (`scrub`).
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import orjson
from mcp.server.mcpserver.exceptions import ToolError

_KEY_IN_URL = re.compile(r"([?&]key=)[^&\s'\"]*", re.IGNORECASE)
_MAX_QUOTED = 300


class TomTomError(ToolError):
    """A TomTom request failed in a way the model can act on."""


class MissingKeyError(TomTomError):
    """The request has no key and the server does not answer offline (`OFFLINE=never`)."""


class InvalidKeyError(TomTomError):
    """TomTom refused the API key (401/403)."""


class RateLimitError(TomTomError):
    """TomTom's quota or rate limit was reached (429)."""


class BadRequestError(TomTomError):
    """TomTom rejected the request's parameters (400 and other 4xx)."""


class UpstreamTimeoutError(TomTomError):
    """TomTom did not answer in time."""


class UpstreamUnavailableError(TomTomError):
    """TomTom answered 5xx, could not be reached, or sent a body that is not JSON."""


OUTCOMES: dict[type[TomTomError], str] = {
    MissingKeyError: "no_key",
    InvalidKeyError: "invalid_key",
    RateLimitError: "rate_limited",
    BadRequestError: "bad_request",
    UpstreamTimeoutError: "timeout",
    UpstreamUnavailableError: "unavailable",
}
"""Outcome labels of `tomtom_mcp_upstream_seconds` (the endpoint is the other label)."""


def scrub(text: str, key: str | None) -> str:
    """`text` with any `key=` query value and the key itself removed: as is, URL-encoded
    and base64-encoded (standard and URL-safe, padded or not)."""
    text = _KEY_IN_URL.sub(r"\1***", text)
    if not key:
        return text
    for form in sorted(key_forms(key), key=len, reverse=True):
        text = text.replace(form, "***")
    return text


def key_forms(key: str) -> set[str]:
    """The spellings of `key` that could carry it into a text (tests search for each)."""
    raw = key.encode("utf-8")
    encoded = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    return {key, quote(key, safe=""), quote_plus(key)} | encoded | {e.rstrip("=") for e in encoded}


def error_for(response: httpx.Response, key: str | None) -> TomTomError:
    status = response.status_code
    detail = scrub(_description(response), key)
    said = f" TomTom said: {detail}" if detail else ""
    if status in (401, 403):
        return InvalidKeyError(
            f"TomTom refused the API key (HTTP {status}): it is missing, invalid, inactive, or "
            f"not enabled for this API. Check the key sent in the tomtom-api-key header or "
            f"configured as TOMTOM_API_KEY.{said}"
        )
    if status == 429:
        retry_after = response.headers.get("retry-after")
        when = f"retry after {retry_after} seconds" if retry_after else "retry later"
        return RateLimitError(
            f"TomTom's quota or rate limit for this API key was reached (HTTP 429); {when}, "
            f"or use fewer requests.{said}"
        )
    if status < 500:
        return BadRequestError(
            f"TomTom rejected the request (HTTP {status}).{said or ' No reason was given.'} "
            "Correct the parameters and try again."
        )
    return UpstreamUnavailableError(
        f"TomTom is unavailable (HTTP {status}). Try again later.{said}"
    )


def _description(response: httpx.Response) -> str:
    """TomTom's own error text: search, routing and traffic each nest it differently."""
    try:
        body = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        text = response.text.strip()
        return re.sub(r"<[^>]+>", " ", text)[:_MAX_QUOTED].strip()
    if not isinstance(body, dict):
        return ""
    error = body.get("error")
    candidates = (
        _field(body.get("detailedError"), "message"),
        _field(error, "description") if isinstance(error, dict) else error,
        body.get("errorText"),
        body.get("message"),
    )
    for text in candidates:
        if isinstance(text, str) and text.strip():
            return text.strip()[:_MAX_QUOTED]
    return ""


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None
