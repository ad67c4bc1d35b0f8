"""Job handles: sealed like tile tokens, they carry what resuming needs (never the key) and
open on any replica sharing the secret, for the key and user that started the job only."""

from __future__ import annotations

import base64
import time

import pytest

from tomtom_mcp_apps.server.errors import TokenError
from tomtom_mcp_apps.server.jobs import RowsPlan
from tomtom_mcp_apps.server.sealing import Sealer
from tomtom_mcp_apps.server.tools._batch_geocode import plan_bytes, plan_of
from tomtom_mcp_apps.server.tools._long_jobs import (
    LAYOUT,
    PURPOSE,
    Handle,
    key_hash,
    open_handle,
    seal,
)

SECRET = "job-secret-of-this-deployment-0123456789"
KEY = "K3yOfTheCaller0123456789abcdefGH"
BATCH = "45e0909c-625a-4822-a060-8f7f88498c0e"


def handle(**changes: object) -> Handle:
    now = int(time.time())
    fields = dict(
        kind="batch-geocode",
        ref=BATCH,
        key_hash=key_hash(KEY),
        offline=False,
        user="0123456789abcdef0123456789abcdef",
        issued=now,
        expires=now + 3600,
        plan=plan_bytes(RowsPlan(10_000, (3, 17, 9000))),
    )
    fields.update(changes)
    return Handle(**fields)  # type: ignore[arg-type]


def test_a_handle_opens_on_any_replica_sharing_a_secret_with_all_it_was_sealed_with() -> None:
    sealed = seal(Sealer([SECRET], PURPOSE, "job handle"), handle())
    rotated = Sealer(
        ["a-newer-secret-of-this-deployment-0123456789", SECRET], PURPOSE, "job handle"
    )
    opened = open_handle(rotated, sealed)
    assert opened == handle(issued=opened.issued, expires=opened.expires)
    assert plan_of(opened.plan) == RowsPlan(10_000, (3, 17, 9000))
    assert len(sealed) < 160, "short enough for a model to pass on"


def test_a_handle_never_holds_the_key() -> None:
    sealed = seal(Sealer([SECRET], PURPOSE, "job handle"), handle())
    raw = base64.urlsafe_b64decode(sealed + "=" * (-len(sealed) % 4))
    assert KEY.encode() not in raw and KEY not in sealed
    assert len(key_hash(KEY)) == 8 and key_hash(KEY) != key_hash(KEY[:-1])


def test_a_handle_from_elsewhere_altered_or_of_a_tile_token_does_not_open() -> None:
    mine = Sealer([SECRET], PURPOSE, "job handle")
    sealed = seal(mine, handle())
    with pytest.raises(TokenError, match="invalid job handle"):
        open_handle(Sealer(["another-deployment-0123456789abcdef"], PURPOSE, "job handle"), sealed)
    flipped = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    with pytest.raises(TokenError):
        open_handle(mine, flipped)
    tile = Sealer([SECRET], b"tomtom-mcp-apps/tile-token/v1", "tile token").seal(b"x" * 40, LAYOUT)
    with pytest.raises(TokenError, match="invalid job handle"):
        open_handle(mine, tile)
    with pytest.raises(TokenError, match="not in the spelling it was issued in"):
        open_handle(mine, sealed + "=")


def test_a_batch_ref_that_is_not_a_uuid_and_a_plan_of_no_empty_rows_round_trip() -> None:
    mine = Sealer([SECRET], PURPOSE, "job handle")
    opened = open_handle(
        mine, seal(mine, handle(ref="b4086eb3-dead-beef", plan=plan_bytes(RowsPlan(120))))
    )
    assert opened.ref == "b4086eb3-dead-beef" and plan_of(opened.plan) == RowsPlan(120)
