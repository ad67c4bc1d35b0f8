"""The signed-in user: a token's (`iss`, `sub`), known to the rest of the server by a hash.

`sub` is unique only per issuer (RFC 9068), so the pair names a user. Everything outside
this package sees only `User.id`, a hash of the pair: stable across replicas and restarts,
never the token.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, principal_components
from starlette.types import Scope

ID_BYTES = 16
"""A user's id is 16 bytes (32 hex digits): a tile token carries it as is."""


@dataclass(frozen=True)
class User:
    """A signed-in user: the token's issuer and subject."""

    issuer: str
    subject: str
    id: str = field(init=False, repr=False)
    """32 hex digits: the BLAKE2b hash of the pair, what logs, budgets and tiles carry."""

    def __post_init__(self) -> None:
        pair = f"{self.issuer}\x00{self.subject}".encode()
        digest = hashlib.blake2b(pair, digest_size=ID_BYTES, person=b"tomtom-mcp-user")
        object.__setattr__(self, "id", digest.hexdigest())


def user_of(token: AccessToken | None) -> User | None:
    """The user a verified token stands for (None without a token, or without both parts)."""
    if token is None:
        return None
    _, issuer, subject = principal_components(token)
    if issuer is None or subject is None:
        return None
    return User(issuer, subject)


def current_user() -> User | None:
    """The user of the request being served: the SDK keeps its verified token in a context
    variable for the whole request, tool calls included."""
    return user_of(get_access_token())


def user_in(scope: Scope) -> User | None:
    """The signed-in user of an ASGI request once its token is verified (a front door that
    keys a rate by client asks this first)."""
    user = scope.get("user")
    return user_of(user.access_token) if isinstance(user, AuthenticatedUser) else None


def user_id_in(scope: Scope) -> str | None:
    """`user_in`'s id: what a rate inside the gate keys a signed-in request by."""
    user = user_in(scope)
    return user.id if user is not None else None
