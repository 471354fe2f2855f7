"""authorize_action / authorize_action_sync (SPEC 4.1 rule 6, 7.4) against a
real Gateway on real PostgreSQL: every decision status as a result, every
error class raised exactly when 7.4 says."""

from __future__ import annotations

import asyncio
import re
import socket
import uuid
from typing import Any

import pytest

from countersign import (
    AuthorizeResult,
    ServiceAuthError,
    ServiceError,
    ServiceHttpError,
    ServiceProtocolError,
    ServiceRateLimitedError,
    ServiceUnavailableError,
    authorize_action,
    authorize_action_sync,
)

UUID = re.compile(r"^[0-9a-f-]{36}$")


def op_key() -> str:
    return f"order-{uuid.uuid4()}"


def call(gw: Any, amount: int, **extra: Any) -> dict[str, Any]:
    return {"gateway_url": gw.url, "api_key": gw.key, "tool": gw.tool, "arguments": {"order": "o", "amount": amount}, "idempotency_key": op_key(), **extra}


# Every decision is a result.


def test_authorized_with_every_member_in_snake_case_and_the_same_answer_for_the_same_key(gateway: Any) -> None:
    req = call(gateway, 40)
    r = authorize_action_sync(**req)
    assert isinstance(r, AuthorizeResult)
    assert (r.allowed, r.status, r.code, r.decision, r.execution, r.approval_request_id, r.policy) == (True, "authorized", None, "allow", "caller", None, None)
    assert UUID.match(r.protected_action_id or "") and UUID.match(r.receipt_id or "")
    for object_id in (r.task_object_id, r.proposal_object_id, r.receipt_object_id):
        assert re.match(r"^ko_[0-9a-f]{64}$", object_id or "")
    assert re.match(r"^sha256:[0-9a-f]{64}$", r.arguments_digest or "")
    assert "expires_at" in (r.note or "")
    assert authorize_action_sync(**req) == r


def test_the_asyncio_form_gives_the_same_decision(gateway: Any) -> None:
    req = call(gateway, 41)
    r = asyncio.run(authorize_action(**req))
    assert r.allowed is True and r.status == "authorized"
    assert authorize_action_sync(**req).protected_action_id == r.protected_action_id


def test_approval_pending_then_a_waiting_call_returns_authorized_once_the_person_approves(gateway: Any) -> None:
    req = call(gateway, 500)
    pending = authorize_action_sync(**req)
    assert (pending.allowed, pending.status, pending.code) == (False, "approval_pending", "APPROVAL_PENDING")
    assert UUID.match(pending.approval_request_id or "")

    async def wait_and_approve() -> AuthorizeResult:
        waiting = asyncio.create_task(authorize_action(**req, wait_seconds=30))
        await asyncio.sleep(0.3)
        await asyncio.to_thread(gateway.control, "decide", approval_request_id=pending.approval_request_id, type="APPROVAL")
        return await waiting

    r = asyncio.run(wait_and_approve())
    assert (r.allowed, r.status) == (True, "authorized")
    assert r.protected_action_id == pending.protected_action_id
    assert r.approval_request_id == pending.approval_request_id


def test_rejected_with_its_closure_receipt(gateway: Any) -> None:
    req = call(gateway, 501)
    pending = authorize_action_sync(**req)
    gateway.control("decide", approval_request_id=pending.approval_request_id, type="REJECTION")
    r = authorize_action_sync(**req)
    assert (r.allowed, r.status, r.code) == (False, "rejected", "REJECTED")
    assert UUID.match(r.receipt_id or "")


def test_expired_after_expires_at_still_carries_its_ids(gateway: Any) -> None:
    req = call(gateway, 42)
    first = authorize_action_sync(**req)
    gateway.control("expire", protected_action_id=first.protected_action_id)
    late = authorize_action_sync(**req)
    assert (late.allowed, late.status, late.code) == (False, "expired", "AUTHORIZATION_EXPIRED")
    assert (late.protected_action_id, late.receipt_id) == (first.protected_action_id, first.receipt_id)


def test_cancelled(gateway: Any) -> None:
    req = call(gateway, 502)
    pending = authorize_action_sync(**req)
    gateway.control("cancel", protected_action_id=pending.protected_action_id)
    r = authorize_action_sync(**req)
    assert (r.allowed, r.status, r.code) == (False, "cancelled", "CANCELLED")


def test_denied_with_the_agent_explanation(gateway: Any) -> None:
    r = authorize_action_sync(**call(gateway, 20000))
    assert (r.allowed, r.status, r.code, r.retryable) == (False, "denied", "POLICY_DENIED", False)
    assert UUID.match(r.protected_action_id or "")
    assert r.policy is not None and r.policy["decided_by"]["rule_id"] == "hard-cap"


def test_plan_limit_records_nothing(gateway: Any) -> None:
    before = gateway.control("recorded", organization="limited")
    r = authorize_action_sync(gateway_url=gateway.url, api_key=gateway.info["limited_key"], tool=gateway.info["limited_tool"], arguments={"amount": 5})
    assert (r.allowed, r.status, r.code, r.protected_action_id) == (False, "plan_limit", "PLAN_LIMIT_EXCEEDED", None)
    assert gateway.control("recorded", organization="limited") == before


def test_invalid_request_from_the_gateway_is_a_result_and_records_nothing(gateway: Any) -> None:
    req = call(gateway, 43)
    authorize_action_sync(**req)
    before = gateway.control("recorded", organization="world")
    reused = authorize_action_sync(**{**req, "arguments": {"order": "other", "amount": 44}})
    assert (reused.allowed, reused.status, reused.code) == (False, "invalid_request", "IDEMPOTENCY_KEY_REUSED")
    unknown = authorize_action_sync(**{**call(gateway, 1), "tool": "no_such_tool"})
    assert (unknown.status, unknown.code) == ("invalid_request", "UNKNOWN_TOOL")
    assert gateway.control("recorded", organization="world") == before


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"tool": ""}, "INVALID_REQUEST"),
        ({"tool": "t" * 129}, "INVALID_REQUEST"),
        ({"arguments": [1]}, "INVALID_REQUEST"),
        ({"idempotency_key": "k" * 201}, "INVALID_REQUEST"),
        ({"wait_seconds": 1.5}, "INVALID_REQUEST"),
        ({"arguments": {"amount": 12.5}}, "INVALID_ARGUMENTS"),
    ],
)
def test_a_request_the_gateway_would_refuse_is_refused_before_sending(gateway: Any, fake_server: Any, change: dict[str, Any], code: str) -> None:
    server = fake_server("answer")
    r = authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url, **change})
    assert (r.allowed, r.status, r.code) == (False, "invalid_request", code)
    assert "nothing was sent" in r.detail
    assert server.requests == 0


# The error classes of 7.4.


@pytest.mark.parametrize("suffix", ["\n", " ", "x"])
def test_malformed_api_key_is_refused_before_sending(gateway: Any, fake_server: Any, suffix: str) -> None:
    server = fake_server("answer")
    with pytest.raises(ServiceAuthError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url, "api_key": gateway.key + suffix})
    assert err.value.code == "MALFORMED_API_KEY"
    assert gateway.key[-43:] not in str(err.value)
    assert server.requests == 0


def test_unauthorized_when_the_gateway_answers_401_and_nothing_is_recorded(gateway: Any) -> None:
    before = gateway.control("recorded", organization="world")
    unknown = re.sub(r"_[A-Za-z0-9_-]{43}$", "_" + "A" * 43, gateway.key)
    with pytest.raises(ServiceAuthError) as err:
        authorize_action_sync(**{**call(gateway, 1), "api_key": unknown})
    assert err.value.code == "UNAUTHORIZED"
    assert gateway.control("recorded", organization="world") == before


def test_rate_limited_with_the_wait(gateway: Any) -> None:
    with pytest.raises(ServiceRateLimitedError) as err:
        authorize_action_sync(gateway_url=gateway.url, api_key=gateway.info["throttled_key"], tool=gateway.info["throttled_tool"], arguments={"amount": 1})
    assert err.value.code == "RATE_LIMITED"
    assert err.value.retry_after_seconds >= 1
    assert gateway.control("recorded", organization="throttled")["actions"] == 0


def test_unavailable_from_a_503_of_the_gateway_outcome_known_nothing_recorded(gateway: Any) -> None:
    before = gateway.control("recorded", organization="world")
    with pytest.raises(ServiceUnavailableError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": gateway.busy_url})
    assert (err.value.code, err.value.outcome_unknown, err.value.retry_after_seconds) == ("GATEWAY_BUSY", False, 5)
    assert gateway.control("recorded", organization="world") == before


def test_a_connection_cut_after_sending_is_outcome_unknown(gateway: Any, fake_server: Any) -> None:
    server = fake_server("cut")
    with pytest.raises(ServiceUnavailableError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url})
    assert (err.value.code, err.value.outcome_unknown) == ("NETWORK_ERROR", True)
    assert server.requests == 1


def test_nothing_listening_is_a_network_error_with_a_known_outcome(gateway: Any) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServiceUnavailableError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": f"http://127.0.0.1:{port}"})
    assert (err.value.code, err.value.outcome_unknown) == ("NETWORK_ERROR", False)


def test_no_answer_in_time_is_a_timeout_with_an_unknown_outcome(gateway: Any, fake_server: Any) -> None:
    server = fake_server("silent")
    with pytest.raises(ServiceUnavailableError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url, "timeout_seconds": 0.3})
    assert (err.value.code, err.value.outcome_unknown) == ("TIMEOUT", True)


def test_another_5xx_is_unavailable_http_error_outcome_unknown(gateway: Any, fake_server: Any) -> None:
    server = fake_server("answer", status=502, body="bad gateway")
    with pytest.raises(ServiceUnavailableError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url})
    assert (err.value.code, err.value.outcome_unknown) == ("HTTP_ERROR", True)


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_the_real_gateway_is_never_followed(gateway: Any, fake_server: Any, status: int) -> None:
    before = gateway.control("recorded", organization="world")
    server = fake_server("redirect", status=status, location=f"{gateway.url}/v1/authorize")
    with pytest.raises(ServiceHttpError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url})
    assert (err.value.code, err.value.http_status, err.value.location) == ("HTTP_ERROR", status, f"{gateway.url}/v1/authorize")
    assert server.requests == 1
    assert gateway.control("recorded", organization="world") == before


def test_a_404_is_an_http_error(gateway: Any) -> None:
    with pytest.raises(ServiceHttpError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": f"{gateway.url}/not-here"})
    assert err.value.http_status == 404


@pytest.mark.parametrize("url", ["http://gateway.example.com", "ftp://127.0.0.1/", "not a url", "http://127.0.0.1:1/?x=1", "https://user:pw@gateway.example.com"])
def test_a_url_that_would_carry_the_key_in_clear_or_elsewhere_is_refused_before_sending(gateway: Any, url: str) -> None:
    with pytest.raises(ServiceHttpError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": url})
    assert "nothing was sent" in str(err.value)


@pytest.mark.parametrize("body", ['{"ok": true}', '{"allowed": true, "status": "authorized"}', "<html>hello</html>"])
def test_a_200_that_is_not_a_gateway_result_is_never_success(gateway: Any, fake_server: Any, body: str) -> None:
    server = fake_server("answer", body=body)
    with pytest.raises(ServiceProtocolError) as err:
        authorize_action_sync(**{**call(gateway, 1), "gateway_url": server.url})
    assert err.value.code == "NOT_A_SERVICE_RESULT"


def test_every_error_class_extends_service_error_with_a_code() -> None:
    for cls in (ServiceAuthError, ServiceHttpError, ServiceProtocolError, ServiceRateLimitedError, ServiceUnavailableError):
        assert issubclass(cls, ServiceError)


