"""fastmcp's client as its authors ship it (``fastmcp.Client`` over its
``StreamableHttpTransport``) against a real Gateway (issue 40, "Done when"),
as test_third_party_mcp.py does with the official ``mcp`` client: the tool
listed with the annotations and output schema its server declared, one
allowed call (run, with a receipt), one denied and one held call that a
person then approves and that runs exactly once. fastmcp needs Python 3.11 or
newer; scripts/test-wheel.sh installs it, and runs this file, there."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def control(gw: Any, name: str, **body: Any) -> Any:
    return await anyio.to_thread.run_sync(lambda: gw.control(name, **body))


async def connected(gateway: Any) -> tuple[Client[Any], str]:
    world = await control(gateway, "third_party")
    transport = StreamableHttpTransport(f"{gateway.url}/mcp", headers={"authorization": f"Bearer {world['key']}"})
    return Client(transport), world["tool"]


def service(result: Any) -> dict[str, Any]:
    return result.structured_content["service"]


async def test_fastmcp_lists_the_tool_and_calls_an_allowed_a_denied_and_a_held_then_approved_call(gateway: Any) -> None:
    client, tool = await connected(gateway)
    async with client:
        listed = await client.list_tools()
        assert [t.name for t in listed] == [tool]
        assert listed[0].annotations is not None and listed[0].annotations.destructive_hint is True
        assert listed[0].output_schema is not None
        # Listed as {type: object, anyOf: [declared, refusal]} (docs/gateway.md, tool metadata): the
        # server's schema first, then the refusal's structuredContent.
        declared, refusal = listed[0].output_schema["anyOf"]
        assert set(declared["properties"]) == {"refunded", "order", "amount"}
        assert refusal["required"] == ["service"]

        before = (await control(gateway, "third_party_calls")).get("refund", 0)
        allowed = await client.call_tool(tool, {"order": "F-1", "amount": 40})
        assert not allowed.is_error
        assert allowed.structured_content == {"refunded": True, "order": "F-1", "amount": 40}
        outcome = await control(gateway, "third_party_outcome", id=allowed.meta["service"]["protected_action_id"])
        assert outcome == {"status": "succeeded", "outcome": "succeeded"}

        denied = await client.call_tool(tool, {"order": "F-2", "amount": 20000}, raise_on_error=False)
        assert denied.is_error and service(denied)["code"] == "POLICY_DENIED"

        meta = {"service/idempotency-key": f"held-{uuid.uuid4()}"}
        args = {"order": "F-3", "amount": 500}
        held = await client.call_tool(tool, args, raise_on_error=False, meta=meta)
        assert held.is_error and service(held)["code"] == "APPROVAL_PENDING"
        await control(gateway, "third_party_approve", approval_request_id=service(held)["approval_request_id"])
        ran = await client.call_tool(tool, args, meta=meta)
        assert not ran.is_error and ran.structured_content == {"refunded": True, "order": "F-3", "amount": 500}
        again = await client.call_tool(tool, args, meta=meta)
        assert again.structured_content == ran.structured_content
        # The allowed call and the approved one: each ran once.
        assert (await control(gateway, "third_party_calls"))["refund"] == before + 2
