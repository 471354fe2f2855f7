"""The official Python ``mcp`` client as its authors ship it (``mcp.Client``
over ``streamable_http_client``, no Countersign helper) against a real
Gateway, in its legacy mode, its auto mode (a ``server/discover`` probe first)
and pinned to 2026-07-28 (issue 40, "Done when"; the TypeScript clients do
the same in test/clients/third-party-mcp.test.ts). An admin registered the
upstream and made its tool through the Cloud API; the client lists it with
the annotations and output schema its server declared, and calls one allowed
call (run, with a receipt), one denied and one held call that a person then
approves and that runs exactly once."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto", "2026-07-28"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def control(gw: Any, name: str, **body: Any) -> Any:
    return await anyio.to_thread.run_sync(lambda: gw.control(name, **body))


@asynccontextmanager
async def agent(gateway: Any, mode: str) -> AsyncIterator[tuple[Client, str]]:
    """The SDK's client with the agent's gateway key as bearer token, and the tool's exposed name."""
    world = await control(gateway, "third_party")
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {world['key']}"}) as http:
        async with Client(streamable_http_client(f"{gateway.url}/mcp", http_client=http), mode=mode) as client:
            yield client, world["tool"]


def service(result: Any) -> dict[str, Any]:
    return result.structured_content["service"]


@pytest.mark.parametrize("mode", MODES)
async def test_lists_the_tool_with_the_annotations_and_output_schema_its_server_declared(gateway: Any, mode: str) -> None:
    async with agent(gateway, mode) as (client, tool):
        listed = (await client.list_tools()).tools
        assert [t.name for t in listed] == [tool]
        assert listed[0].title == "Refund"
        assert listed[0].annotations is not None
        assert listed[0].annotations.destructive_hint is True and listed[0].annotations.read_only_hint is False
        assert listed[0].annotations.title == "Refund a payment"
        assert listed[0].output_schema is not None
        # Listed as {type: object, anyOf: [declared, refusal]} (docs/gateway.md, tool metadata): the
        # server's schema first, then the refusal's structuredContent.
        declared, refusal = listed[0].output_schema["anyOf"]
        assert set(declared["properties"]) == {"refunded", "order", "amount"}
        assert refusal["required"] == ["service"]


@pytest.mark.parametrize("mode", MODES)
async def test_an_allowed_call_runs_once_with_meta_service_and_a_receipt(gateway: Any, mode: str) -> None:
    async with agent(gateway, mode) as (client, tool):
        await client.list_tools()
        before = (await control(gateway, "third_party_calls")).get("refund", 0)
        result = await client.call_tool(tool, {"order": f"P-{mode}", "amount": 40})
        assert not result.is_error
        assert result.structured_content == {"refunded": True, "order": f"P-{mode}", "amount": 40}
        assert (await control(gateway, "third_party_calls"))["refund"] == before + 1
        meta = result.meta["service"]
        assert meta["receipt_object_id"].startswith("ko_")
        assert await control(gateway, "third_party_outcome", id=meta["protected_action_id"]) == {"status": "succeeded", "outcome": "succeeded"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_denied_call_is_a_refusal_result_and_the_upstream_is_not_called(gateway: Any, mode: str) -> None:
    async with agent(gateway, mode) as (client, tool):
        await client.list_tools()
        before = (await control(gateway, "third_party_calls")).get("refund", 0)
        result = await client.call_tool(tool, {"order": "P-denied", "amount": 20000})
        assert result.is_error
        assert service(result)["status"] == "denied" and service(result)["code"] == "POLICY_DENIED"
        assert (await control(gateway, "third_party_calls")).get("refund", 0) == before


@pytest.mark.parametrize("mode", MODES)
async def test_a_held_call_approved_by_a_person_runs_exactly_once(gateway: Any, mode: str) -> None:
    async with agent(gateway, mode) as (client, tool):
        await client.list_tools()
        meta = {"service/idempotency-key": f"held-{uuid.uuid4()}"}
        args = {"order": f"P-held-{mode}", "amount": 500}
        before = (await control(gateway, "third_party_calls")).get("refund", 0)
        held = await client.call_tool(tool, args, meta=meta)
        assert held.is_error and service(held)["code"] == "APPROVAL_PENDING"
        again = await client.call_tool(tool, args, meta=meta)
        assert service(again)["approval_request_id"] == service(held)["approval_request_id"]

        await control(gateway, "third_party_approve", approval_request_id=service(held)["approval_request_id"])
        ran = await client.call_tool(tool, args, meta=meta)
        assert not ran.is_error
        assert ran.structured_content == {"refunded": True, "order": args["order"], "amount": 500}
        assert ran.meta["service"]["protected_action_id"] == service(held)["protected_action_id"]
        repeat = await client.call_tool(tool, args, meta=meta)
        assert repeat.structured_content == ran.structured_content
        assert (await control(gateway, "third_party_calls"))["refund"] == before + 1


@pytest.mark.parametrize("mode", MODES)
async def test_a_held_call_without_meta_is_resumed_by_the_identical_call_and_runs_once(gateway: Any, mode: str) -> None:
    """What an LLM-driven client sends: no ``_meta``, so no idempotency key (docs/gateway.md, "Approvals without _meta")."""
    async with agent(gateway, mode) as (client, tool):
        await client.list_tools()
        args = {"order": f"P-keyless-{mode}-{uuid.uuid4().hex[:6]}", "amount": 600}
        before = (await control(gateway, "third_party_calls")).get("refund", 0)
        held = await client.call_tool(tool, args)
        assert held.is_error and service(held)["code"] == "APPROVAL_PENDING"
        again = await client.call_tool(tool, args)
        assert service(again)["approval_request_id"] == service(held)["approval_request_id"]
        await control(gateway, "third_party_approve", approval_request_id=service(held)["approval_request_id"])
        ran = await client.call_tool(tool, args)
        assert not ran.is_error
        assert ran.meta["service"]["protected_action_id"] == service(held)["protected_action_id"]
        assert (await control(gateway, "third_party_calls"))["refund"] == before + 1
