"""The MCP helper (countersign.mcp) against a real Gateway
and real upstream MCP servers built with the MCP SDK: bearer key, per-call
metadata, completed calls with ``_meta.service``, refusals as typed results or
raised with ``throw_on_refusal``, paging to at most 1000 pages, and the errors."""

from __future__ import annotations

import json
import re
import secrets
import uuid
from typing import Any

import anyio
import pytest

from countersign import ServiceAuthError, ServiceError, ServiceHttpError, ServiceProtocolError, ServiceRefusalError, ServiceUnavailableError
from countersign.mcp import MAX_TOOL_PAGES, GatewayClient, ToolCallCompleted, ToolCallRefused, ToolRefusal, connect_gateway

pytestmark = pytest.mark.anyio

UUID = re.compile(r"^[0-9a-f-]{36}$")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def op_key() -> str:
    return f"op-{uuid.uuid4()}"


async def control(gw: Any, name: str, **body: Any) -> Any:
    return await anyio.to_thread.run_sync(lambda: gw.control(name, **body))


async def raised(awaitable: Any) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        await awaitable
    return info.value


async def connect_raises(**options: Any) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        async with connect_gateway(**options):
            pass
    return info.value


# Calls through the Gateway.


async def test_a_completed_call_carries_meta_service_and_the_same_idempotency_key_answers_without_running_again(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
        before = (await control(gateway, "upstream_calls"))["gateway"].get("refund", 0)
        key = op_key()
        outcome = await gw.call_tool(gateway.mcp_tool, {"order": "o-1", "amount": 40}, idempotency_key=key)
        assert isinstance(outcome, ToolCallCompleted) and outcome.ok is True
        assert outcome.result.structured_content == {"echoed": {"order": "o-1", "amount": 40}}
        assert UUID.match(outcome.service.protected_action_id)
        assert UUID.match(outcome.service.receipt_id or "")
        assert (outcome.service.result_object_id or "").startswith("ko_")
        assert outcome.service.policy is None
        again = await gw.call_tool(gateway.mcp_tool, {"order": "o-1", "amount": 40}, idempotency_key=key)
        assert again.service == outcome.service and again.result.structured_content == outcome.result.structured_content
        assert (await control(gateway, "upstream_calls"))["gateway"]["refund"] == before + 1
        recorded = await control(gateway, "protected_action", id=outcome.service.protected_action_id)
        assert recorded == {"status": "succeeded", "idempotency_key": key}


async def test_a_refusal_is_a_typed_result_and_the_upstream_is_not_called(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
        before = (await control(gateway, "upstream_calls"))["gateway"].get("refund", 0)
        outcome = await gw.call_tool(gateway.mcp_tool, {"order": "o-2", "amount": 20000})
        assert isinstance(outcome, ToolCallRefused) and outcome.ok is False
        assert (outcome.refusal.status, outcome.refusal.code, outcome.refusal.retryable) == ("denied", "POLICY_DENIED", False)
        assert UUID.match(outcome.refusal.protected_action_id or "")
        assert outcome.result.is_error is True
        assert (await control(gateway, "upstream_calls"))["gateway"].get("refund", 0) == before


async def test_throw_on_refusal_raises_service_refusal_error_holding_the_refusal(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key, throw_on_refusal=True) as strict:
        err = await raised(strict.call_tool(gateway.mcp_tool, {"order": "o-3", "amount": 20000}))
        assert isinstance(err, ServiceRefusalError)
        assert err.code == "POLICY_DENIED"
        assert isinstance(err.refusal, ToolRefusal)
        assert (err.refusal.status, err.refusal.code) == ("denied", "POLICY_DENIED")
        # Completed calls still return normally.
        assert (await strict.call_tool(gateway.mcp_tool, {"order": "o-4", "amount": 5})).ok is True


async def test_idempotency_key_and_wait_seconds_a_held_call_waits_for_the_approval_then_runs_once(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
        key = op_key()
        args = {"order": "o-5", "amount": 500}
        first = await gw.call_tool(gateway.mcp_tool, args, idempotency_key=key)
        assert isinstance(first, ToolCallRefused)
        assert (first.refusal.status, first.refusal.code) == ("approval_pending", "APPROVAL_PENDING")
        assert UUID.match(first.refusal.approval_request_id or "")
        before = (await control(gateway, "upstream_calls"))["gateway"].get("refund", 0)
        done: list[Any] = []

        async def wait() -> None:
            done.append(await gw.call_tool(gateway.mcp_tool, args, idempotency_key=key, wait_seconds=30))

        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await anyio.sleep(0.3)
            await control(gateway, "decide", approval_request_id=first.refusal.approval_request_id, type="APPROVAL")
        assert isinstance(done[0], ToolCallCompleted)
        assert done[0].service.protected_action_id == first.refusal.protected_action_id
        assert (await control(gateway, "upstream_calls"))["gateway"]["refund"] == before + 1


async def test_list_tools_follows_cursors_over_every_page(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.paged_key) as gw:
        tools = await gw.list_tools()
    assert sorted(t.name for t in tools) == [f"t_{i:02d}" for i in range(53)]


# Errors.


async def test_too_many_pages_after_exactly_1000_pages_of_an_endless_tools_list(gateway: Any) -> None:
    # The helper speaks to any server at {gateway_url}/mcp; this one never stops paging.
    before = (await control(gateway, "upstream_calls"))["endless_pages"]
    async with connect_gateway(gateway_url=gateway.endless_url, api_key=gateway.key) as gw:
        err = await raised(gw.list_tools())
    assert err.code == "TOO_MANY_PAGES"
    assert (await control(gateway, "upstream_calls"))["endless_pages"] - before == MAX_TOOL_PAGES == 1000


async def test_not_a_service_result_a_plain_mcp_server_answer_is_never_success(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.direct_url, api_key=gateway.key) as gw:
        err = await raised(gw.call_tool("refund", {"amount": 1}))
    assert isinstance(err, ServiceProtocolError)
    assert err.code == "NOT_A_SERVICE_RESULT"


async def test_malformed_api_key_before_connecting_nothing_sent(gateway: Any, fake_server: Any) -> None:
    server = fake_server("answer", status=200, body="{}")
    with pytest.raises(ServiceAuthError) as info:
        GatewayClient(gateway_url=server.url, api_key=f"{gateway.key}\n")
    assert info.value.code == "MALFORMED_API_KEY"
    assert gateway.key not in str(info.value)
    assert server.requests == 0


async def test_unauthorized_when_the_gateway_answers_401_and_nothing_is_recorded(gateway: Any) -> None:
    before = await control(gateway, "recorded", organization="world")
    unknown = gateway.key[:-43] + secrets.token_urlsafe(32)[:43]
    err = await connect_raises(gateway_url=gateway.url, api_key=unknown)
    assert isinstance(err, ServiceAuthError) and err.code == "UNAUTHORIZED"
    assert await control(gateway, "recorded", organization="world") == before


async def test_a_redirect_is_never_followed(gateway: Any, fake_server: Any) -> None:
    before = await control(gateway, "recorded", organization="world")
    # Same origin, so the SDK itself would follow it: the helper never does.
    server = fake_server("redirect", status=307, location="/elsewhere/mcp")
    err = await connect_raises(gateway_url=server.url, api_key=gateway.key)
    assert isinstance(err, ServiceHttpError)
    assert (err.http_status, err.location) == (307, "/elsewhere/mcp")
    assert server.requests == 1
    assert await control(gateway, "recorded", organization="world") == before


async def test_a_connection_cut_mid_request_is_network_error_with_the_outcome_unknown(gateway: Any, fake_server: Any) -> None:
    server = fake_server("cut")
    err = await connect_raises(gateway_url=server.url, api_key=gateway.key)
    assert isinstance(err, ServiceUnavailableError)
    assert (err.code, err.outcome_unknown) == ("NETWORK_ERROR", True)


async def test_nothing_listening_is_network_error_with_nothing_sent(gateway: Any, fake_server: Any) -> None:
    server = fake_server("answer")
    url = server.url
    server.close()
    err = await connect_raises(gateway_url=url, api_key=gateway.key)
    assert isinstance(err, ServiceUnavailableError)
    assert (err.code, err.outcome_unknown) == ("NETWORK_ERROR", False)


async def test_timeout_when_the_gateway_holds_a_call_past_the_clients_timeout_and_its_record_is_kept(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
        key = op_key()
        args = {"order": "o-timeout", "amount": 500}
        first = await gw.call_tool(gateway.mcp_tool, args, idempotency_key=key)
        assert isinstance(first, ToolCallRefused)
        # The Gateway waits up to 4 s for the person; the client gives up after 1 s.
        err = await raised(gw.call_tool(gateway.mcp_tool, args, idempotency_key=key, wait_seconds=4, timeout_seconds=1))
        assert isinstance(err, ServiceUnavailableError)
        assert (err.code, err.outcome_unknown) == ("TIMEOUT", True)
        # Asking again with the same key answers what the Gateway recorded: still pending.
        again = await gw.call_tool(gateway.mcp_tool, args, idempotency_key=key)
        assert isinstance(again, ToolCallRefused)
        assert (again.refusal.status, again.refusal.protected_action_id) == ("approval_pending", first.refusal.protected_action_id)


async def test_a_json_rpc_error_marked_unavailable_is_rpc_unavailable_and_any_other_a_protocol_error(gateway: Any) -> None:
    before = (await control(gateway, "upstream_calls"))["direct"]
    async with connect_gateway(gateway_url=gateway.direct_url, api_key=gateway.key) as gw:
        unavailable = await raised(gw.call_tool("unavailable", {}))
        assert isinstance(unavailable, ServiceUnavailableError)
        assert (unavailable.code, unavailable.outcome_unknown) == ("RPC_UNAVAILABLE", False)
        assert "DATABASE_UNAVAILABLE" in str(unavailable)
        broken = await raised(gw.call_tool("broken", {}))
        assert isinstance(broken, ServiceProtocolError)
        assert "-32603" in str(broken)
    after = (await control(gateway, "upstream_calls"))["direct"]
    assert (after.get("unavailable", 0) - before.get("unavailable", 0), after.get("broken", 0) - before.get("broken", 0)) == (1, 1)


async def test_a_503_with_the_gateways_unavailable_body_is_that_code_with_the_outcome_known(gateway: Any, fake_server: Any) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32000, "message": "draining", "data": {"service": {"status": "unavailable", "code": "GATEWAY_SHUTTING_DOWN", "retryable": True}}},
        }
    )
    server = fake_server("answer", status=503, body=body, headers={"Retry-After": "5"})
    err = await connect_raises(gateway_url=server.url, api_key=gateway.key)
    assert isinstance(err, ServiceUnavailableError)
    assert (err.code, err.outcome_unknown, err.retry_after_seconds) == ("GATEWAY_SHUTTING_DOWN", False, 5)


async def test_a_busy_gateway_refuses_unavailable_gateway_busy_retryable_and_records_nothing(gateway: Any) -> None:
    before = await control(gateway, "recorded", organization="world")
    async with connect_gateway(gateway_url=gateway.busy_url, api_key=gateway.key) as gw:
        outcome = await gw.call_tool(gateway.mcp_tool, {"order": "o-busy", "amount": 5}, idempotency_key=op_key())
    assert isinstance(outcome, ToolCallRefused)
    assert (outcome.refusal.status, outcome.refusal.code, outcome.refusal.retryable) == ("unavailable", "GATEWAY_BUSY", True)
    assert await control(gateway, "recorded", organization="world") == before
