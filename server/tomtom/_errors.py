"""What a failed TomTom request becomes: a `TomTomError` the model can act on.

The classes are `server.errors`' (`TomTomError` and its tree); here, TomTom's failed
answer becomes one of them with TomTom's own reason quoted (`error_for`), and every
message is scrubbed of the caller's key (`scrub`).
"""

from __future__ import annotations

import base64
import codecs
import email.message
import email.utils
import math
import re
import time
from typing import Any
from urllib.parse import quote, quote_plus

import orjson

from tomtom_mcp_apps.server.errors import (
    AnswerTooLargeError,
    BadRequestError,
    InvalidKeyError,
    MissingKeyError,
    QuotaError,
    RateLimitError,
    Redirected,
    TomTomError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
)

_KEY_IN_URL = re.compile(r"([?&]key=)[^&\s'\"]*", re.IGNORECASE)
_MAX_QUOTED = 300
_OVER_QPS = re.compile(r"over\s*(qps|rate)", re.IGNORECASE)
"""TomTom's gateway has answered a queries-per-second breach with 403 "Developer Over Qps"
(CartoDB/dataservices-api#545); that is a rate limit, not a bad key."""
MAX_RETRY_AFTER_S = 3600
_CONTROL = re.compile(r"[\x00-\x1f\x7f\ufffd]+")


OUTCOMES: dict[type[TomTomError], str] = {
    MissingKeyError: "no_key",
    InvalidKeyError: "invalid_key",
    RateLimitError: "rate_limited",
    QuotaError: "quota",
    AnswerTooLargeError: "too_large",
    BadRequestError: "bad_request",
    UpstreamTimeoutError: "timeout",
    UpstreamUnavailableError: "unavailable",
    Redirected: "redirected",
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


def error_for(
    status: int,
    content: bytes,
    key: str | None,
    *,
    retry_after: str | None = None,
    content_type: str | None = None,
) -> TomTomError:
    """The error for TomTom's failed answer (its status, the start of its body decoded, its
    `Retry-After` and `Content-Type`), its status kept."""
    error = _error_for(status, content, key, retry_after, content_type)
    error.status = status
    return error


def _error_for(
    status: int, content: bytes, key: str | None, retry: str | None, content_type: str | None
) -> TomTomError:
    detail = scrub(_description(content, content_type), key)
    said = f" TomTom said: {detail}" if detail else ""
    if status == 429 or (status == 403 and _OVER_QPS.search(detail)):
        retry_after = retry_after_s(retry)
        when = f"retry in {math.ceil(retry_after)} s" if retry_after is not None else "retry later"
        return RateLimitError(
            f"TomTom's rate limit for this API key was reached (HTTP {status}); {when}, "
            f"or use fewer requests.{said}",
            retry_after=retry_after,
        )
    if status in (401, 403):
        return InvalidKeyError(
            f"TomTom refused the API key (HTTP {status}): it is missing, invalid, inactive, or "
            f"not enabled for this API. Check the key sent in the tomtom-api-key header or "
            f"configured as TOMTOM_API_KEY.{said}"
        )
    if status < 500:
        return BadRequestError(
            f"TomTom rejected the request (HTTP {status}).{said or ' No reason was given.'} "
            "Correct the parameters and try again."
        )
    return UpstreamUnavailableError(
        f"TomTom is unavailable (HTTP {status}). Try again later.{said}"
    )


def retry_after_s(value: str | None) -> float | None:
    """A Retry-After header (seconds, or an HTTP date) as seconds from now, or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def _description(content: bytes, content_type: str | None) -> str:
    """TomTom's own error text: search, routing and traffic each nest it differently."""
    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        text = _CONTROL.sub(" ", _text(content, content_type))  # control and binary: unquoted
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


def _text(content: bytes, content_type: str | None) -> str:
    """`content` as text in the charset its `Content-Type` names, else UTF-8, undecodable
    bytes replaced."""
    charset = None
    if content_type:
        header = email.message.Message()
        header["content-type"] = content_type
        charset = header.get_content_charset(failobj=None)
    try:
        codecs.lookup(charset or "utf-8")
    except LookupError:
        charset = None
    return content.decode(charset or "utf-8", errors="replace")


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None
