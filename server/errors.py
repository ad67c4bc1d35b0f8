"""Every exception class of `server`, drawn once; other modules raise them, none defines its own.

A tool error's message is what the model reads, so it says what to change. This module
imports nothing, so fitting workers raise these too; `server.app.TomTomServer` turns a
`ToolCallError` into the SDK's `ToolError` (docs/tools.md, Errors for the model). In
brackets, the built-in class each also is::

    Exception
     ├── ToolCallError                           a tool call failed; the message is for the model
     │    ├── JobError (also ValueError)         a job could not build its result
     │    │    └── BodyError                     TomTom's body is not JSON of the expected
     │    │         │                            shape, is over its size once decoded, or is
     │    │         │                            broken gzip
     │    │         ├── NoRoute                  TomTom answered with no route
     │    │         └── BadAnswer                TomTom's answer is malformed where the result
     │    │                                      depends on it (the field is named)
     │    ├── FitWorkerDied (also RuntimeError)  a worker died mid-job (the pool was rebuilt)
     │    ├── BusyError                          the fitting pool's queue is full (retry_after)
     │    ├── TomTomError                        a TomTom request was refused or failed
     │    │    ├── MissingKeyError               no key for the request and OFFLINE=never
     │    │    ├── InvalidKeyError               401/403: key missing, invalid, inactive or
     │    │    │                                 not entitled
     │    │    ├── RateLimitError                429 (or TomTom's 403 "Over Qps"), or our own
     │    │    │    │                            pacing; `retry_after` seconds
     │    │    │    ├── QuotaError               the operator's quota per key per minute
     │    │    │    └── UserQuotaError           a signed-in user's budget per minute or day
     │    │    │                                 (or its shared store is unreachable)
     │    │    ├── BadRequestError               other 4xx: TomTom's own description quoted
     │    │    ├── UpstreamTimeoutError          no whole answer within the deadline
     │    │    └── UpstreamUnavailableError      5xx, connection failure, or not JSON
     │    │         ├── AnswerTooLargeError      over the size this server accepts
     │    │         └── Redirected               a 3xx; the client follows a Matrix v2
     │    │                                      result's, the model reads any other
     │    └── DataUrlError                       a `data_url` was refused or failed
     ├── GeoJsonError (ValueError)               caller GeoJSON is malformed (its path named);
     │                                           the data-viz job reports it as a JobError
     ├── TokenError (ValueError)                 a tile token cannot be used (the 403's reason)
     ├── TokenRefused (ValueError)               a bearer token is refused (the 401's reason)
     ├── IssuerUnavailable (RuntimeError)        the authorization server's metadata, keys or
     │                                           introspection cannot be had (a 503)
     ├── QuotaStoreError (RuntimeError)          the shared budget store did not answer
     ├── TransportError                          an outgoing request got no answer; messages
     │    │                                      quote the class's name (`server.outbound`)
     │    ├── ConnectError                       no connection: refused, unresolvable, TLS
     │    ├── ReadError                          the connection failed mid-exchange
     │    ├── RemoteProtocolError                the answer broke HTTP or ended early
     │    ├── UnsupportedProtocol                the URL is not http or https
     │    ├── InvalidURL                         the URL cannot be parsed
     │    └── TransportTimeout                   a step took longer than its timeout
     │         ├── ConnectTimeout                no free connection, or connecting, in time
     │         └── ReadTimeout                   no byte of the answer in time
     ├── OfflineBadRequest (ValueError)          the offline upstream refuses a request: a 400
     │                                           in the shape of the TomTom service asked
     └── ConfigError (ValueError)                an environment variable is unusable (start-up)

`fitting` keeps its own tree (`fitting/_exceptions.py`). Two private exceptions are control
flow that never leaves its module: `server.tomtom._pacing._TooLong` and
`server.cli.fit._BadInput`.
"""

from __future__ import annotations


class ToolCallError(Exception):
    """A tool call failed in a way the model can act on; the message is for the model."""


class JobError(ToolCallError, ValueError):
    """A job could not build its result."""


class BodyError(JobError):
    """TomTom's body is not JSON of the expected shape."""


class NoRoute(BodyError):
    """TomTom answered, but with no route."""


class BadAnswer(BodyError):
    """TomTom's answer is malformed where the result depends on it (the field is named)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"TomTom's answer is malformed at {where}: {what}. Try again later.")
        self.where = where


class FitWorkerDied(ToolCallError, RuntimeError):
    """A fitting worker process died during this call; the pool has been rebuilt."""


class BusyError(ToolCallError):
    """The replica holds as much work waiting for its fitting pool as it may."""

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TomTomError(ToolCallError):
    """A TomTom request failed in a way the model can act on."""

    status: int | None = None
    """TomTom's HTTP status, when it answered."""


class MissingKeyError(TomTomError):
    """The request has no key and the server does not answer offline (`OFFLINE=never`)."""


class InvalidKeyError(TomTomError):
    """TomTom refused the API key (401/403)."""


class RateLimitError(TomTomError):
    """A queries-per-second limit was reached (TomTom's 429, or our pacing refused to wait)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds after which a retry may succeed, when known."""


class QuotaError(RateLimitError):
    """The operator's quota of TomTom requests per key per minute is used up."""


class UserQuotaError(RateLimitError):
    """A signed-in user has used their budget of TomTom requests (`USER_QUOTA_PER_*`)."""


class BadRequestError(TomTomError):
    """TomTom rejected the request's parameters (400 and other 4xx)."""


class UpstreamTimeoutError(TomTomError):
    """TomTom did not answer in time."""


class UpstreamUnavailableError(TomTomError):
    """TomTom answered 5xx, could not be reached, or sent a body that is not JSON."""


class AnswerTooLargeError(UpstreamUnavailableError):
    """TomTom's answer is larger than `TOMTOM_MAX_BODY_BYTES` (or its declared length is)."""


class Redirected(UpstreamUnavailableError):
    """TomTom answered 3xx; `location` is where the answer is. The client follows it for a
    Matrix v2 result (`TomTomClient.matrix_result`); anywhere else the model reads that
    TomTom redirected, never the address (a signed one may hold a secret)."""

    def __init__(self, location: str) -> None:
        super().__init__(
            "TomTom answered with a redirect this request does not follow. Try again later."
        )
        self.location = location


class DataUrlError(ToolCallError):
    """The `data_url` was refused or could not be downloaded."""


class GeoJsonError(ValueError):
    """The GeoJSON is malformed; the message starts with the path of the fault."""


class TokenError(ValueError):
    """A token that cannot be used; the message is the short reason the 403 carries."""


class TokenRefused(ValueError):
    """A bearer token this server does not accept; `reason` is a label from a closed set
    (metrics), the message a short description for `error_description` (never the token)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class IssuerUnavailable(RuntimeError):
    """The authorization server's metadata, keys or introspection could not be had: no
    token can be checked until it answers again."""


class QuotaStoreError(RuntimeError):
    """The shared store of per-user budgets (Redis) did not answer in time or failed."""


class OfflineBadRequest(ValueError):
    """The offline upstream cannot answer the request as sent; `message` says what to change."""

    def __init__(self, message: str, *, target: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.target = target
        self.code = code


class TransportError(Exception):
    """An outgoing request got no usable answer. The class's name is what messages quote
    ("could not be reached (ConnectError)"); the message may hold the URL, and so a key."""


class ConnectError(TransportError):
    """No connection: refused, unresolvable, or TLS refused the certificate."""


class ReadError(TransportError):
    """The connection failed while the request was sent or its answer read."""


class RemoteProtocolError(TransportError):
    """The answer broke HTTP, or the connection closed before its end."""


class UnsupportedProtocol(TransportError):
    """The URL has no scheme this server speaks (http, https)."""


class InvalidURL(TransportError):
    """The URL cannot be parsed."""


class TransportTimeout(TransportError):
    """A step of the request took longer than its timeout (not the whole request's
    deadline, which is the built-in `TimeoutError`)."""


class ConnectTimeout(TransportTimeout):
    """No free connection, or no connection made, in time."""


class ReadTimeout(TransportTimeout):
    """No byte of the answer came in time."""


class ConfigError(ValueError):
    """An environment variable holds a value the server cannot use."""
