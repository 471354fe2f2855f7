"""The server helper (countersign.server) on MCP servers built with the official ``mcp`` package,
behind a real Gateway: the evidence is checked before the tool runs, a call whose arguments were
altered on the way is refused (UPSTREAM_REFUSED, the tool never runs), results are attested and the
receipt carries the trusted attestation and verifies offline; a server that does not attest gives
ATTESTATION_MISSING with a receipt that warns."""

from __future__ import annotations

import secrets
import socket
import threading
import time
import uuid
from typing import Any

import anyio
import pytest
import uvicorn
from mcp import types
from mcp.server.lowlevel import Server

from countersign.mcp import ToolCallCompleted, ToolCallRefused, connect_gateway
from countersign.server import canonical_json, digest_of, service_aware

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def control(gw: Any, name: str, **body: Any) -> Any:
    return await anyio.to_thread.run_sync(lambda: gw.control(name, **body))


class Upstream:
    """A low-level ``mcp`` Server over stateless Streamable HTTP on 127.0.0.1, in a thread."""

    def __init__(self, on_call_tool: Any) -> None:
        self.ran = 0

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=[types.Tool(name="refund", input_schema={"type": "object"})])

        server = Server("python-service-aware", on_list_tools=list_tools, on_call_tool=on_call_tool)
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
