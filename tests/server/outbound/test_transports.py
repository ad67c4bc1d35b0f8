"""The one HTTP seam's transports: what goes out is what the caller built and nothing of the
library's own, answers come as received and bounded, and every failure is a
`TransportError` of a name the model may read."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator

import httpx
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import Response
from starlette.routing import Route

from tomtom_mcp_apps.server import outbound
from tomtom_mcp_apps.server.errors import (
    ConnectError,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    UnsupportedProtocol,
)
from tomtom_mcp_apps.server.outbound import Answer, Client, InProcess, Network, Timeouts


class Chunks(Answer):
    """An answer whose body comes in `parts`, counting how many were pulled."""

    def __init__(self, *parts: bytes) -> None:
        super().__init__(200, CIMultiDictProxy(CIMultiDict()))
        self.parts = parts
        self.pulled = 0

    async def chunks(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            self.pulled += 1
            yield part


async def test_a_body_is_received_up_to_its_cap_and_no_further() -> None:
    assert await Chunks(b"ab", b"cd").read(4) == b"abcd"
    past = Chunks(b"ab", b"cd", b"e", b"never read")
    assert await past.read(4) is None
    assert past.pulled == 3, "nothing is read past the chunk that passed the cap"


async def test_an_error_answers_start_is_read_and_the_rest_left() -> None:
    answer = Chunks(b"abc", b"def", b"never read")
    assert await answer.read_start(4) == b"abcd"
    assert answer.pulled == 2


class Heads:
    """A TCP server on 127.0.0.1 answering every request head with `reply`, keeping the heads."""

    def __init__(self, reply: bytes | None) -> None:
        self.reply = reply
        self.heads: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            self.heads.append(await reader.readuntil(b"\r\n\r\n"))
            if self.reply is None:
                await asyncio.sleep(30)
            else:
                writer.write(self.reply)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


OK = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


async def test_a_request_carries_the_clients_headers_and_nothing_of_the_librarys() -> None:
    heads = Heads(OK)
    client = Client(Network(2), headers={"user-agent": "tomtom-mcp-apps/test"})
    async with heads as url:
        async with client.request("GET", f"{url}/a%2Fb?q=caf%C3%A9&k=1", encoded=True) as answer:
            assert answer.status == 200 and await answer.read(10) == b"{}"
        async with client.request("GET", url + "/x", headers={"user-agent": "other"}) as answer:
            assert answer.status == 200
    await client.aclose()
    first = heads.heads[0].decode("latin-1").lower().split("\r\n")
    assert first[0] == "get /a%2fb?q=caf%c3%a9&k=1 http/1.1"  # sent as built
    names = {line.split(":")[0] for line in first[1:] if line}
    assert names == {"host", "user-agent"}, "no Accept, Accept-Encoding or agent of aiohttp's"
    assert "user-agent: tomtom-mcp-apps/test" in first
    assert "user-agent: other" in heads.heads[1].decode().lower(), "a request's own wins"


async def test_a_gzipped_answer_comes_as_received() -> None:
    packed = gzip.compress(b'{"a": 1}')
    reply = b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % len(packed)
    client = Client(Network(1))
    async with Heads(reply + packed) as url, client.request("GET", url) as answer:
        assert answer.header("content-encoding") == "gzip"
        assert await answer.read(1000) == packed
    await client.aclose()


async def test_a_step_past_its_timeout_is_a_read_timeout_and_the_deadline_a_timeout_error() -> None:
    client = Client(Network(1))
    async with Heads(None) as url:
        with pytest.raises(ReadTimeout):
            async with client.request("GET", url, timeouts=Timeouts(read=0.2)):
                pass
        with pytest.raises(TimeoutError):
            async with client.request("GET", url, deadline_s=0.2):
                pass
    await client.aclose()


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}", RemoteProtocolError),
        (b"SMTP ready\r\n\r\n", RemoteProtocolError),
    ],
    ids=["cut short", "not HTTP"],
)
async def test_a_broken_answer_is_a_remote_protocol_error(
    reply: bytes, error: type[Exception]
) -> None:
    client = Client(Network(1))
    with pytest.raises(error):
        async with Heads(reply) as url, client.request("GET", url) as answer:
            await answer.read(100)
    await client.aclose()


async def test_nothing_listening_is_a_connect_error_and_another_scheme_unsupported() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    client = Client(Network(1))
    with pytest.raises(ConnectError):
        async with client.request("GET", f"http://127.0.0.1:{port}/"):
            pass
    with pytest.raises(UnsupportedProtocol):
        async with client.request("GET", "ftp://127.0.0.1/x"):
            pass
    await client.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        async with client.request("GET", f"http://127.0.0.1:{port}/"):
            pass


async def echo(request: StarletteRequest) -> Response:
    body = await request.body()
    seen = {
        "path": request.url.path,
        "raw_path": request.scope["raw_path"].decode(),
        "query": request.scope["query_string"].decode(),
        "host": request.headers["host"],
        "length": request.headers.get("content-length"),
        "agent": request.headers.get("user-agent"),
        "body": body.decode(),
    }
    return Response(repr(seen).encode(), headers={"x-seen": "1", "set-cookie": "a=1"})


async def broken(request: StarletteRequest) -> Response:
    raise ValueError("a fault of this server")


APP = Starlette(routes=[Route("/echo/{rest:path}", echo, methods=["GET", "POST", "HEAD"]),
                        Route("/broken", broken)])  # fmt: skip


async def test_an_app_in_process_sees_the_request_as_over_http_and_answers_whole() -> None:
    client = Client(InProcess(APP), headers={"user-agent": "agent"})
    url = "http://offline-upstream.invalid/echo/Caf%C3%A9%20a%2Fb?x=1&y=%20"
    async with client.request("POST", url, body=b"hello", encoded=True) as answer:
        seen = eval(await answer.read(10_000))  # the repr of a dict of strings
        assert answer.status == 200 and answer.header("x-seen") == "1"
    assert seen == {
        "path": "/echo/Café a/b",
        "raw_path": "/echo/Caf%C3%A9%20a%2Fb",
        "query": "x=1&y=%20",
        "host": "offline-upstream.invalid",
        "length": "5",
        "agent": "agent",
        "body": "hello",
    }
    async with client.request("HEAD", "http://offline-upstream.invalid/echo/x") as answer:
        assert answer.status == 200 and await answer.read(10) == b""
    with pytest.raises(ValueError, match="a fault of this server"):
        async with client.request("GET", "http://offline-upstream.invalid/broken"):
            pass


async def test_a_stand_in_answers_as_the_network_would() -> None:
    packed = gzip.compress(b"{}")

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/refused":
            raise httpx.ConnectError("refused", request=request)
        if request.url.path == "/slow":
            raise httpx.ReadTimeout("slow", request=request)
        if request.url.path == "/odd":
            raise httpx.CloseError("odd", request=request)
        if request.url.path == "/streamed":
            headers = {"content-encoding": "gzip"}
            return httpx.Response(200, headers=headers, stream=httpx.ByteStream(packed))
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=packed)

    client = Client(httpx.MockTransport(answer))
    async with client.request("GET", "http://t/read") as read:
        # httpx decoded a body given whole: it comes without its coding
        assert read.header("content-encoding") == "" and await read.read(100) == b"{}"
    async with client.request("GET", "http://t/streamed") as streamed:
        assert streamed.header("content-encoding") == "gzip"
        assert await streamed.read(100) == packed
    for path, error in (("refused", ConnectError), ("slow", ReadTimeout), ("odd", ReadError)):
        with pytest.raises(error):
            async with client.request("GET", f"http://t/{path}"):
                pass
    await client.aclose()


def head_lines(head: bytes) -> set[str]:
    return set(head.decode("latin-1").lower().split("\r\n")[1:]) - {""}


async def test_each_destination_sends_its_own_headers_and_the_products_user_agent() -> None:
    agent = "tomtom-mcp-apps/9.9 (+https://maps.example.test/mcp)"
    heads = Heads(OK)
    tiles = outbound.tiles(connections=2, timeout_s=5, user_agent=agent)
    data_urls = outbound.data_urls(timeout_s=5, user_agent=agent)
    async with heads as url:
        for client in (tiles, data_urls):
            async with client.request("GET", url + "/x"):
                pass
            await client.aclose()
    tile, data_url = (head_lines(h) for h in heads.heads)
    assert {f"user-agent: {agent.lower()}", "accept-encoding: gzip", "accept: */*"} <= tile
    assert f"user-agent: {agent.lower()}" in data_url and not any(
        line.startswith("accept") for line in data_url
    ), "a data_url request says what it accepts itself (server.downloads)"
    seen: list[httpx.Request] = []

    def issuer_answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    issuer = outbound.issuer(
        timeout_s=5, user_agent=agent, stand_in=httpx.MockTransport(issuer_answer)
    )
    async with issuer.request("GET", "https://as.example.test/.well-known/openid-configuration"):
        pass
    assert seen[0].headers["user-agent"] == agent
    assert seen[0].headers["accept-encoding"] == "identity"
