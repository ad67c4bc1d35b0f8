"""Long TomTom jobs any replica resumes: the job handle, sealed like the tile tokens.

When an asynchronous TomTom job (a Batch Search batch, a Matrix Routing job) is not done
within a tool call, the call answers with a handle, and `tomtom-job-result` (the model)
or `tomtom-resume-job` (a view) resume it on any replica, with no store. A handle seals
(`server.sealing`, its own purpose, under `TILE_TOKEN_SECRET`):

- `kind`: what the job is and so what to do with its result (`batch-geocode`, `matrix`);
- `ref`: TomTom's reference to the job (a batch id, a matrix job id);
- which key started it: 8 bytes of BLAKE2b of the key, never the key itself; resuming
  uses the caller's own key (header or configured), which must hash the same, so a
  handle is worthless to anyone without that key; or that the offline upstream ran it;
- the signed-in user who started it (`User.id`), who alone may resume it;
- when it was issued and until when it holds (TomTom's retention for the kind);
- `plan`: the kind's own bytes (which input row each batch item is).

A kind plugs in with a resume function and, for views that page through a result, a
page function, in `long_jobs.py`'s tables (docs/front-door.md, job handles). Without
`TILE_TOKEN_SECRET` (a keyless demo) a per-process secret seals: a handle then opens
only on the replica that issued it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from mcp.server.mcpserver.exceptions import ToolError

from tomtom_mcp_apps.server.config import Settings
from tomtom_mcp_apps.server.errors import TokenError
from tomtom_mcp_apps.server.sealing import Sealer
from tomtom_mcp_apps.server.tools._caller import Caller

PURPOSE = b"tomtom-mcp-apps/job-handle/v1"
LAYOUT = b"job-handle-v1"
MAX_HANDLE_CHARS = 1_500
"""Longer `job` values are refused unread (a handle is about 150 characters)."""
MAX_PLAN_BYTES = 512
_HEAD = struct.Struct(">B8s16sII")  # flags, key hash, user id, issued, expires (unix s)
_OFFLINE, _USER, _UUID = 1, 2, 4
_NO_USER = bytes(16)
_PROCESS_SECRET = os.urandom(32).hex()
"""Seals handles when no `TILE_TOKEN_SECRET` is set: they open on this replica only."""


@dataclass(frozen=True)
class Handle:
    """What a job handle holds, once opened."""

    kind: str
    ref: str
    key_hash: bytes
    offline: bool
    user: str | None
    issued: int
    expires: int
    plan: bytes


def key_hash(key: str | None) -> bytes:
    """Which key a job was started with, as a handle keeps it (never the key)."""
    if key is None:
        return bytes(8)
    return hashlib.blake2b(key.encode("utf-8"), digest_size=8, person=b"job-handle").digest()


@functools.lru_cache(maxsize=4)
def _sealer(secrets: Sequence[str]) -> Sealer:
    return Sealer(list(secrets), PURPOSE, "job handle")


def sealer(settings: Settings) -> Sealer:
    """The sealer of job handles: the replicas' shared secrets, else this process's own."""
    return _sealer(tuple(settings.tile_token_secrets) or (_PROCESS_SECRET,))


def issue(caller: Caller, kind: str, ref: str, ttl_s: int, plan: bytes = b"") -> tuple[str, Handle]:
    """A handle for the job `ref` of `kind` the caller just started, valid `ttl_s`."""
    offline = caller.offline
    key = None if offline else caller.tomtom.key_for(caller.key)
    user = caller.user.id if caller.user is not None else None
    now = int(time.time())
    handle = Handle(kind, ref, key_hash(key), offline, user, now, now + ttl_s, plan)
    return seal(sealer(caller.runtime.settings), handle), handle


def seal(with_sealer: Sealer, handle: Handle) -> str:
    kind = handle.kind.encode("ascii")
    flags = (_OFFLINE if handle.offline else 0) | (_USER if handle.user else 0)
    ref = handle.ref.encode("ascii")
    try:
        packed = uuid.UUID(handle.ref)
        if str(packed) == handle.ref:
            ref, flags = packed.bytes, flags | _UUID
    except ValueError:
        pass
    if len(kind) > 32 or len(ref) > 100 or len(handle.plan) > MAX_PLAN_BYTES:
        raise ValueError("a job handle holds a kind of 32, a ref of 100, a plan of 512 bytes")
    user = bytes.fromhex(handle.user) if handle.user else _NO_USER
    head = _HEAD.pack(flags, handle.key_hash, user, handle.issued, handle.expires)
    plain = head + bytes([len(kind)]) + kind + bytes([len(ref)]) + ref + handle.plan
    return with_sealer.seal(plain, LAYOUT)


def open_handle(with_sealer: Sealer, text: str) -> Handle:
    """The handle sealed in `text`; `TokenError` saying why not (never repeating it)."""
    plain = with_sealer.open(text.strip(), (LAYOUT,), max_chars=MAX_HANDLE_CHARS).plain
    try:
        flags, hashed, user, issued, expires = _HEAD.unpack_from(plain)
        at = _HEAD.size
        kind = plain[at + 1 : at + 1 + plain[at]].decode("ascii")
        at += 1 + plain[at]
        ref_bytes = plain[at + 1 : at + 1 + plain[at]]
        at += 1 + plain[at]
    except (struct.error, IndexError, UnicodeDecodeError):
        raise TokenError("malformed job handle") from None
    ref = str(uuid.UUID(bytes=ref_bytes)) if flags & _UUID else ref_bytes.decode("ascii")
    return Handle(
        kind=kind,
        ref=ref,
        key_hash=hashed,
        offline=bool(flags & _OFFLINE),
        user=user.hex() if flags & _USER else None,
        issued=issued,
        expires=expires,
        plan=plain[at:],
    )


def resumable(caller: Caller, text: str, kinds: Sequence[str]) -> Handle:
    """The handle in `text`, when this caller may resume it here, as one of `kinds`; a
    tool error in plain words otherwise (a handle is never repeated)."""
    try:
        handle = open_handle(sealer(caller.runtime.settings), text)
    except TokenError as exc:
        raise ToolError(
            f"job: {exc}. Pass the job exactly as the tool's answer gave it; a job handle "
            "from another server, or from this one before its secret changed, does not open."
        ) from None
    if handle.kind not in kinds:
        raise ToolError(f"job: a {handle.kind} job cannot be resumed here.")
    if handle.expires <= time.time():
        raise ToolError(
            "job: this job handle has expired (TomTom keeps a job's result for a limited "
            "time); run the tool again."
        )
    user = caller.user.id if caller.user is not None else None
    if handle.user != user:
        raise ToolError("job: this job was started by another user; only they may resume it.")
    offline = caller.offline
    if handle.offline != offline:
        said = "the offline demo upstream" if handle.offline else "TomTom, with an API key"
        raise ToolError(f"job: this job ran on {said}; resume it the same way it was started.")
    key = None if offline else caller.tomtom.key_for(caller.key)
    if handle.key_hash != key_hash(key):
        raise ToolError(
            "job: this job was started with another TomTom API key; resume it with the key "
            "that started it."
        )
    return handle
