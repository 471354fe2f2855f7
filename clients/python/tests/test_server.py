"""The server helper (countersign.server) on MCP servers built with the official ``mcp`` package,
behind a real Gateway: the evidence is checked before the tool runs, a call whose arguments were
altered on the way is refused (UPSTREAM_REFUSED, the tool never runs), results are attested and the
receipt carries the trusted attestation and verifies offline; a server that does not attest gives
ATTESTATION_MISSING with a receipt that warns."""

from __future__ import annotations

import json
import secrets
import socket
import threading
import time
import urllib.request
import uuid
from typing import Any

import anyio
import pytest
import uvicorn
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from countersign.mcp import ToolCallCompleted, ToolCallRefused, connect_gateway
from countersign.server import canonical_json, digest_of, service_aware

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def control(gw: Any, name: str, **body: Any) -> Any:
    return await anyio.to_thread.run_sync(lambda: gw.control(name, **body))


class Upstream:
    """A low-level ``mcp`` Server over stateless Streamable HTTP on 127.0.0.1, in a thread (declared
    service-aware by ``declare`` when given), or any ASGI ``app`` of an ``mcp`` server."""

    def __init__(self, on_call_tool: Any = None, *, declare: Any = None, app: Any = None) -> None:
        self.ran = 0

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=[types.Tool(name="refund", input_schema={"type": "object"})])

        if app is None:
            server = Server("python-service-aware", on_list_tools=list_tools, on_call_tool=on_call_tool)
            if declare is not None:
                declare.declare(server)
            app = server.streamable_http_app(json_response=True, stateless_http=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the upstream did not start")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


async def refund_tool(upstream: Upstream, ctx: Any, params: Any) -> types.CallToolResult:
    upstream.ran += 1
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"refunded {params.arguments}")], structured_content={"echoed": params.arguments})


async def registered_tool(gateway: Any, upstream: Upstream, helper: Any) -> tuple[str, str]:
    made = await control(gateway, "service_aware_tool", url=upstream.url, upstream_name="refund")
    if helper is not None:
        await control(gateway, "register_server_identity", server_id=made["server_id"], document=helper.identity(made["organization_id"], made["server_id"]))
    return made["name"], made["gateway_kid"]


def test_canonical_json_is_rfc_8785() -> None:
    assert canonical_json({"b": [1, 1.5, 1e21, 1e-7, None, True], "a": "é\u0001", "\U0001f600": 0, "\uffff": 0}) == (
        '{"a":"é\\u0001","b":[1,1.5,1e+21,1e-7,null,true],"\U0001f600":0,"\uffff":0}'
    )
    # The digest the Gateway's TASK carries for these arguments (same value, same bytes in TypeScript).
    assert digest_of({"order": "o-1", "amount": 40}) == digest_of({"amount": 40, "order": "o-1"})


async def test_an_attested_call_runs_once_and_its_receipt_carries_the_trusted_attestation(gateway: Any) -> None:
    # A first tool only to learn the Gateway's KID, which the helper needs before the server starts.
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    upstream = Upstream(helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params)))
    try:
        tool, _ = await registered_tool(gateway, upstream, helper)
        async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
            outcome = await gw.call_tool(tool, {"order": "py-1", "amount": 40}, idempotency_key=f"py-{uuid.uuid4()}")
        assert isinstance(outcome, ToolCallCompleted), (outcome.refusal.code, outcome.refusal.detail, outcome.result.content)
        assert outcome.result.structured_content == {"echoed": {"order": "py-1", "amount": 40}}
        assert upstream.ran == 1
        receipt = await control(gateway, "receipt", id=outcome.service.receipt_id)
        objects = receipt["bundle"]["objects"]
        execution = next(o for o in objects if o["body"]["type"] == "EXECUTION")
        attestation = next(o for o in objects if o["body"]["type"] == "ATTESTATION")
        assert execution["body"]["payload"]["server_kid"] == helper.kid
        assert (attestation["body"]["actor"], attestation["body"]["payload"]["subject"]) == (helper.kid, execution["id"])
        assert receipt["bundle"]["receipt"]["body"]["payload"]["trusted_attesters"] == [helper.kid]
        assert receipt["verification"]["valid"] is True
        assert receipt["verification"]["warnings"] == []
    finally:
        upstream.close()


async def test_arguments_altered_on_the_way_are_refused_and_the_tool_never_runs(gateway: Any) -> None:
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    checked = helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params))

    async def tampering(ctx: Any, params: Any) -> Any:
        return await checked(ctx, params.model_copy(update={"arguments": {**(params.arguments or {}), "amount": 1}}))

    upstream = Upstream(tampering)
    try:
        tool, _ = await registered_tool(gateway, upstream, helper)
        async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
            outcome = await gw.call_tool(tool, {"order": "py-2", "amount": 40}, idempotency_key=f"py-{uuid.uuid4()}")
        assert isinstance(outcome, ToolCallRefused)
        assert (outcome.refusal.status, outcome.refusal.code) == ("upstream_error", "UPSTREAM_REFUSED")
        assert upstream.ran == 0
        recorded = await control(gateway, "protected_action", id=outcome.refusal.protected_action_id)
        assert recorded["status"] == "failed"
    finally:
        upstream.close()


async def test_a_server_that_does_not_attest_gives_attestation_missing_and_the_receipt_warns(gateway: Any) -> None:
    upstream = Upstream(lambda ctx, params: refund_tool(upstream, ctx, params))
    made = await control(gateway, "service_aware_tool", url=upstream.url, upstream_name="refund")
    # The identity is registered, but the server never signs with it.
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    await control(gateway, "register_server_identity", server_id=made["server_id"], document=helper.identity(made["organization_id"], made["server_id"]))
    try:
        async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
            outcome = await gw.call_tool(made["name"], {"order": "py-3", "amount": 40}, idempotency_key=f"py-{uuid.uuid4()}")
        assert isinstance(outcome, ToolCallRefused)
        assert (outcome.refusal.status, outcome.refusal.code) == ("upstream_error", "ATTESTATION_MISSING")
        assert upstream.ran == 1
        receipt = await control(gateway, "receipt", id=outcome.refusal.receipt_id)
        assert receipt["verification"]["valid"] is True
        assert [w["code"] for w in receipt["verification"]["warnings"]] == ["ATTESTATION_MISSING"]
    finally:
        upstream.close()


def initialize_result(url: str) -> dict[str, Any]:
    """What an MCP server answers to initialize (a 2025-era client, as the Cloud API's)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    }
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json", "accept": "application/json, text/event-stream"}
    )
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())["result"]


async def refused_twice(gateway: Any, tool: str, key: str, code: str) -> None:
    """The call refuses with ``code`` and again on retry with the same idempotency key; nothing was consumed."""
    idempotency_key = f"py-{uuid.uuid4()}"
    outcomes = []
    for _ in range(2):
        async with connect_gateway(gateway_url=gateway.url, api_key=key) as gw:
            outcomes.append(await gw.call_tool(tool, {"order": "py-9", "amount": 40}, idempotency_key=idempotency_key))
    for outcome in outcomes:
        assert isinstance(outcome, ToolCallRefused)
        assert (outcome.refusal.status, outcome.refusal.code) == ("upstream_error", code)
    action = outcomes[0].refusal.protected_action_id
    assert outcomes[1].refusal.protected_action_id == action
    recorded = await control(gateway, "action_state", id=action)
    # Still approved: no EXECUTION signed, no RESULT, no receipt.
    assert (recorded["status"], recorded["execution_object_id"], recorded["receipt_id"]) == ("approved", None, None)
    assert await control(gateway, "signed_types", id=action) == ["PROPOSAL", "TASK"]


async def test_evidence_over_the_size_bound_is_refused_before_anything_is_consumed_and_again_on_retry(gateway: Any) -> None:
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund", world="oversized")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    upstream = Upstream(helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params)))
    try:
        made = await control(gateway, "service_aware_tool", url=upstream.url, upstream_name="refund", world="oversized")
        document = helper.identity(made["organization_id"], made["server_id"])
        await control(gateway, "register_server_identity", server_id=made["server_id"], organization_id=made["organization_id"], document=document)
        await refused_twice(gateway, made["name"], made["key"], "UPSTREAM_EVIDENCE_TOO_LARGE")
        assert upstream.ran == 0
    finally:
        upstream.close()


@pytest.mark.parametrize(
    ("identity", "code"),
    [("unknown_server_identity", "UPSTREAM_IDENTITY_UNKNOWN"), ("long_server_identity", "UPSTREAM_IDENTITY_TOO_LARGE")],
)
async def test_a_server_identity_the_gateway_cannot_use_is_refused_before_anything_is_consumed(gateway: Any, identity: str, code: str) -> None:
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    upstream = Upstream(helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params)))
    try:
        made = await control(gateway, "service_aware_tool", url=upstream.url, upstream_name="refund")
        await control(gateway, identity, server_id=made["server_id"])
        await refused_twice(gateway, made["name"], gateway.key, code)
        assert upstream.ran == 0
    finally:
        upstream.close()


async def test_an_attestation_of_another_result_gives_attestation_invalid_and_the_receipt_warns(gateway: Any) -> None:
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    attested = helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params))

    async def lying(ctx: Any, params: Any) -> Any:
        result = await attested(ctx, params)
        return {**result, "content": [{"type": "text", "text": "something else"}]}

    upstream = Upstream(lying)
    try:
        tool, _ = await registered_tool(gateway, upstream, helper)
        async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
            outcome = await gw.call_tool(tool, {"order": "py-5", "amount": 40}, idempotency_key=f"py-{uuid.uuid4()}")
        assert isinstance(outcome, ToolCallRefused)
        assert (outcome.refusal.status, outcome.refusal.code) == ("upstream_error", "ATTESTATION_INVALID")
        assert upstream.ran == 1
        recorded = await control(gateway, "action_state", id=outcome.refusal.protected_action_id)
        assert (recorded["status"], recorded["error_code"]) == ("failed", "ATTESTATION_INVALID")
        receipt = await control(gateway, "receipt", id=outcome.refusal.receipt_id)
        assert receipt["verification"]["valid"] is True
        assert [w["code"] for w in receipt["verification"]["warnings"]] == ["ATTESTATION_MISSING"]
        assert not [o for o in receipt["bundle"]["objects"] if o["body"]["type"] == "ATTESTATION"]
    finally:
        upstream.close()


async def test_an_mcpserver_is_made_service_aware_in_one_line(gateway: Any) -> None:
    """The high-level ``MCPServer`` (mcp 1's FastMCP): ``protect`` declares it and guards every tool."""
    made = await control(gateway, "service_aware_tool", url="http://127.0.0.1:9/mcp", upstream_name="refund")
    helper = service_aware(secrets.token_bytes(32), [made["gateway_kid"]])
    ran: list[dict[str, Any]] = []
    server = MCPServer("python-mcpserver")

    @server.tool()
    def refund(order: str, amount: int) -> dict[str, Any]:
        ran.append({"order": order, "amount": amount})
        return {"refunded": amount, "order": order}

    helper.protect(server)
    upstream = Upstream(app=server.streamable_http_app(json_response=True, stateless_http=True))
    try:
        declared = await anyio.to_thread.run_sync(initialize_result, upstream.url)
        assert declared["capabilities"]["experimental"] == {"service/evidence": {"service_evidence": "0.1", "server_kid": helper.kid}}
        tool, _ = await registered_tool(gateway, upstream, helper)
        async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
            outcome = await gw.call_tool(tool, {"order": "py-6", "amount": 40}, idempotency_key=f"py-{uuid.uuid4()}")
            assert isinstance(outcome, ToolCallCompleted), (outcome.refusal.code, outcome.refusal.detail)
            assert outcome.result.structured_content == {"refunded": 40, "order": "py-6"}
            receipt = await control(gateway, "receipt", id=outcome.service.receipt_id)
            assert receipt["bundle"]["receipt"]["body"]["payload"]["trusted_attesters"] == [helper.kid]
            assert receipt["verification"]["valid"] is True
            assert receipt["verification"]["warnings"] == []
            # Called without the evidence (straight, not through the Gateway): refused, the tool does not run.
        assert ran == [{"order": "py-6", "amount": 40}]
        direct = await anyio.to_thread.run_sync(call_directly, upstream.url, "refund", {"order": "py-7", "amount": 1})
        assert direct["isError"] is True
        assert direct["_meta"]["service/refusal"]["reason"] == "EVIDENCE_MISSING"
        # A _meta that is not an object carries no evidence either.
        odd = await anyio.to_thread.run_sync(call_directly, upstream.url, "refund", {"order": "py-8", "amount": 1}, ["service/evidence"])
        assert odd["isError"] is True
        assert odd["_meta"]["service/refusal"]["reason"] == "EVIDENCE_MISSING"
        assert ran == [{"order": "py-6", "amount": 40}]
    finally:
        upstream.close()


async def test_a_lowlevel_server_declares_its_identity(gateway: Any) -> None:
    helper = service_aware(secrets.token_bytes(32), [])
    upstream = Upstream(helper.call_tool(lambda ctx, params: refund_tool(upstream, ctx, params)), declare=helper)
    try:
        declared = await anyio.to_thread.run_sync(initialize_result, upstream.url)
        assert declared["capabilities"]["experimental"] == {"service/evidence": {"service_evidence": "0.1", "server_kid": helper.kid}}
        assert "tools" in declared["capabilities"]
    finally:
        upstream.close()


def call_directly(url: str, name: str, arguments: dict[str, Any], meta: Any = None) -> dict[str, Any]:
    """A tools/call to a stateless server without any evidence, or with ``meta`` as its ``_meta`` (after initialize, as a client would)."""
    initialize_result(url)
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18"}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())["result"]
