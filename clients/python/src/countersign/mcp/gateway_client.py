"""An MCP client for the Gateway on the official ``mcp`` SDK: the
gateway key as bearer token, the per-call metadata ``service/idempotency-key``
and ``service/wait-seconds``, refusals as typed results (or raised as
``ServiceRefusalError`` with ``throw_on_refusal``), and tools/list paged to at
most 1000 pages."""

from __future__ import annotations

import sys
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Mapping, NoReturn

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation, Tool
from mcp_types import REQUEST_TIMEOUT

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

from ..checks import check_api_key, check_gateway_url
from ..errors import ServiceError, ServiceProtocolError, ServiceRefusalError, ServiceUnavailableError
from .gateway_http import GatewayHttpTransport
from .tool_result import ToolCallOutcome, ToolCallRefused, read_tool_result

MAX_TOOL_PAGES = 1000
_BASE_TIMEOUT_SECONDS = 60.0


class GatewayClient:
    """Use as ``async with GatewayClient(gateway_url=..., api_key=...) as gateway:``.

    The key and URL are checked when it is made, before anything is sent. Enter and
    leave it in the same task (the SDK's connection lives in a task group)."""

    def __init__(
        self,
        *,
        gateway_url: str,
        api_key: str,
        throw_on_refusal: bool = False,
        client_info: Implementation | None = None,
        http_transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        key = check_api_key(api_key)
        base = check_gateway_url(gateway_url)
        url = httpx2.URL(base.geturl().rstrip("/") + "/mcp")
        self._http = GatewayHttpTransport((url.scheme, url.host, url.port), http_transport)
        self._throw_on_refusal = throw_on_refusal
        self._stack = AsyncExitStack()
        http_client = httpx2.AsyncClient(
            transport=self._http,
            headers={"authorization": f"Bearer {key}"},
            # The SDK's own timeouts bound each request; this only bounds a silent socket.
            timeout=httpx2.Timeout(30.0, read=_BASE_TIMEOUT_SECONDS + 90.0),
            follow_redirects=False,
        )
        self._http_client = http_client
        self._client = Client(
            streamable_http_client(str(url), http_client=http_client),
            # The Gateway speaks the initialize handshake; no server/discover probe.
            mode="legacy",
            # Tools change with the organization's configuration: always ask.
            cache=None,
            read_timeout_seconds=_BASE_TIMEOUT_SECONDS,
            client_info=client_info or Implementation(name="countersign-client", version="0.1.0"),
        )

    @property
    def client(self) -> Client:
        """The underlying MCP SDK client, for anything this helper does not wrap."""
        return self._client

    async def __aenter__(self) -> GatewayClient:
        await self._stack.enter_async_context(self._http_client)
        try:
            await self._mapped(self._stack.enter_async_context(self._client))
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self._stack.aclose()

    async def list_tools(self) -> list[Tool]:
        """Every tool, page by page; more than 1000 pages is ``TOO_MANY_PAGES`` (a Gateway never pages forever)."""
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = await self._mapped(self._client.list_tools(cursor=cursor))
            tools.extend(page.tools)
            if not page.next_cursor:
                return tools
            cursor = page.next_cursor
        raise ServiceError("TOO_MANY_PAGES", f"tools/list returned more than {MAX_TOOL_PAGES} pages")

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        wait_seconds: int | None = None,
        timeout_seconds: float | None = None,
    ) -> ToolCallOutcome:
        """One tools/call. ``idempotency_key``: one per business operation (a repeat answers for the
        same action, never runs it twice); ``wait_seconds``: how long the Gateway may hold the call
        while a person decides (0 to 60)."""
        meta: dict[str, Any] = {}
        if idempotency_key is not None:
            meta["service/idempotency-key"] = idempotency_key
        if wait_seconds is not None:
            meta["service/wait-seconds"] = wait_seconds
        timeout = timeout_seconds if timeout_seconds is not None else _BASE_TIMEOUT_SECONDS + min(wait_seconds or 0, 60)
        result = await self._mapped(
            self._client.call_tool(name, dict(arguments or {}), read_timeout_seconds=timeout, meta=meta or None)
        )
        outcome = read_tool_result(result)
        if isinstance(outcome, ToolCallRefused) and self._throw_on_refusal:
            raise ServiceRefusalError(outcome.refusal.code, outcome.refusal.detail, outcome.refusal)
        return outcome

    async def _mapped(self, awaitable: Any) -> Any:
        """SDK errors as the client errors of countersign.errors; ours pass through."""
        try:
            return await awaitable
        except Exception as caught:  # noqa: BLE001 - anything that is not ours is not a Gateway answer
            # A failure while connecting comes out of the SDK's task group wrapped in a group of one.
            err = _single(caught)
            if isinstance(err, ServiceError):
                raise err from None
            if isinstance(err, MCPError):
                _raise_mapped(err, self._http.failure_of(err.data))
            raise ServiceProtocolError(f"not a Gateway answer: {type(err).__name__}: {err}") from err


def connect_gateway(
    *,
    gateway_url: str,
    api_key: str,
    throw_on_refusal: bool = False,
    client_info: Implementation | None = None,
) -> GatewayClient:
    """``async with connect_gateway(gateway_url=..., api_key=...) as gateway:``"""
    return GatewayClient(gateway_url=gateway_url, api_key=api_key, throw_on_refusal=throw_on_refusal, client_info=client_info)


def _single(err: BaseException) -> BaseException:
    while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
        err = err.exceptions[0]
    return err


def _raise_mapped(err: MCPError, kept: ServiceError | None) -> NoReturn:
    if kept is not None:
        raise kept from None
    if err.code == REQUEST_TIMEOUT:
        raise ServiceUnavailableError("TIMEOUT", "no answer from the Gateway in time; the outcome is unknown", outcome_unknown=True) from err
    data = err.data if isinstance(err.data, dict) else {}
    service = data.get("service") if isinstance(data.get("service"), dict) else {}
    if service.get("status") == "unavailable":
        raise ServiceUnavailableError("RPC_UNAVAILABLE", f"the Gateway answered unavailable ({service.get('code')})", outcome_unknown=False) from err
    raise ServiceProtocolError(f"the Gateway answered a JSON-RPC error ({err.code}) instead of a result") from err
