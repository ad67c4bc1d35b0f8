"""The TomTom client over the network (`server.outbound.Network`) on real sockets: what is
sent is what the client built, bodies come as received, and every way a connection can
fail is an error the model can act on, never an internal one."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.tls import trusting
from tomtom_mcp_apps.server.errors import UpstreamTimeoutError, UpstreamUnavailableError
from tomtom_mcp_apps.server.outbound import Network
from tomtom_mcp_apps.server.tomtom import Bounds, TomTomClient

KEY = "k3y+with/odd=chars"
Answer = Callable[[bytes], bytes | None]
"""The bytes to write back for a request's head, or None to close the connection."""


class Upstream:
    """A TCP server on 127.0.0.1 that answers each request head with `answer`'s bytes and
    records the heads and the connections they came on."""

    def __init__(self, answer: Answer, *, close_after: bool = False) -> None:
        self.answer = answer
        self.close_after = close_after
        """Close each connection after its first answer."""
        self.heads: list[bytes] = []
        self.connections = 0
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                self.heads.append(head)
                reply = self.answer(head)
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def sockets() -> AsyncIterator[Callable[..., Upstream]]:
    started: list[Upstream] = []

    def start(answer: Answer, close_after: bool = False) -> Upstream:
        started.append(Upstream(answer, close_after=close_after))
        return started[-1]

    yield start
    for one in started:
        if one.server is not None:
            one.server.close()


async def client_of(up: Upstream, deadline_s: float = 5.0) -> TomTomClient:
    up.server = await asyncio.start_server(up.serve, "127.0.0.1", 0)
    return TomTomClient(Network(4), up.url, KEY, bounds=Bounds(deadline_s=deadline_s))


def answer(body: bytes, *, status: str = "200 OK", gzipped: bool = False) -> bytes:
    coding = b"content-encoding: gzip\r\n" if gzipped else b""
    content = gzip.compress(body) if gzipped else body
    head = b"HTTP/1.1 %s\r\ncontent-type: application/json\r\n%scontent-length: %d\r\n\r\n"
    return head % (status.encode(), coding, len(content)) + content


async def test_the_request_goes_out_as_built_and_the_connection_is_kept(sockets) -> None:
    up = sockets(lambda head: answer(b'{"results": []}'))
    tomtom = await client_of(up)
    try:
        await tomtom.geocode("Rue de l'Église 5/7", key=None, params=[("limit", 3)])
        await tomtom.geocode("Amsterdam", key=None)
    finally:
        await tomtom.aclose()
    first = up.heads[0].decode().lower()
    assert first.startswith(
        "get /search/2/geocode/rue%20de%20l%27%c3%89glise%205%2f7.json"
        "?limit=3&key=k3y%2bwith%2fodd%3dchars http/1.1\r\n".lower()
    )
    assert "user-agent: tomtom-mcp-apps/" in first and "aiohttp" not in first
    assert "accept-encoding: gzip\r\n" in first
    assert up.connections == 1  # the second request reused the first one's connection


async def test_a_gzipped_answer_comes_as_received_and_is_decoded_once(sockets) -> None:
    body = b'{"results": [{"id": "1"}], "pad": "%s"}' % (b"x" * 50_000)
    up = sockets(lambda head: answer(body, gzipped=True))
    tomtom = await client_of(up)
    try:
        assert (await tomtom.geocode("Amsterdam", key=None))["results"] == [{"id": "1"}]
    finally:
        await tomtom.aclose()


async def test_an_error_answer_read_in_part_does_not_go_back_to_the_pool(sockets) -> None:
    long_error = answer(
        b'{"detailedError": {"message": "%s"}}' % (b"x" * 200_000), status="400 Bad"
    )
    replies = iter([long_error, answer(b'{"results": []}')])
    up = sockets(lambda head: next(replies))
    tomtom = await client_of(up)
    try:
        with pytest.raises(Exception, match="TomTom"):
            await tomtom.geocode("Amsterdam", key=None)
        assert (await tomtom.geocode("Amsterdam", key=None)) == {"results": []}
    finally:
        await tomtom.aclose()
    assert up.connections == 2  # the unread rest of the error never reached the next request


@pytest.mark.parametrize(
    "reply",
    [
        lambda head: None,  # closed before answering
        lambda head: answer(b'{"results": []}')[:-5],  # closed before the body's end
        lambda head: b"SMTP ready\r\n\r\n",  # not HTTP at all
        lambda head: b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n",
    ],
    ids=["closed", "cut short", "not HTTP", "bad header"],
)
async def test_a_broken_answer_is_an_upstream_error_naming_what_broke(sockets, reply) -> None:
    up = sockets(reply, close_after=True)
    tomtom = await client_of(up)
    try:
        with pytest.raises(UpstreamUnavailableError) as caught:
            await tomtom.geocode("Amsterdam", key=None)
    finally:
        await tomtom.aclose()
    assert "TomTom could not be reached (RemoteProtocolError)" in str(caught.value)
    assert KEY not in str(caught.value)


async def test_a_refused_connection_is_unreachable_not_slow() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    tomtom = TomTomClient(Network(2), f"http://127.0.0.1:{port}", KEY)
    try:
        with pytest.raises(
            UpstreamUnavailableError, match=r"could not be reached \(ConnectError\)"
        ):
            await tomtom.geocode("Amsterdam", key=None)
    finally:
        await tomtom.aclose()


async def test_an_upstream_that_never_answers_ends_at_the_deadline() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    tomtom = TomTomClient(Network(2), f"http://127.0.0.1:{port}", KEY, bounds=Bounds(1.0))
    try:
        with pytest.raises(UpstreamTimeoutError, match="no whole answer within 1 s"):
            await asyncio.wait_for(tomtom.geocode("Amsterdam", key=None), 10)
    finally:
        await tomtom.aclose()
        server.close()


@pytest.mark.parametrize("trusted", [True, False])
async def test_tls_trusts_the_certificate_authorities_httpx_trusts(
    sockets, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    tls = trusting(tmp_path, monkeypatch, trusted)
    up = sockets(lambda head: answer(b'{"results": []}'))
    up.server = await asyncio.start_server(up.serve, "127.0.0.1", 0, ssl=tls)
    port = up.server.sockets[0].getsockname()[1]
    tomtom = TomTomClient(Network(2), f"https://127.0.0.1:{port}", KEY)
    try:
        if trusted:
            assert await tomtom.geocode("Amsterdam", key=None) == {"results": []}
        else:  # a certificate nobody vouches for: refused, and said so
            with pytest.raises(UpstreamUnavailableError, match=r"\(ConnectError\)"):
                await tomtom.geocode("Amsterdam", key=None)
    finally:
        await tomtom.aclose()
