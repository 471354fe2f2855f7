"""A Gateway ``tools/call`` result read as a typed outcome: a
completed call carries ``_meta.service``; a refusal is a result with
``isError`` true and ``structuredContent.service``. Anything else is not a
Gateway result and is never taken for success."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, Union

from mcp.types import CallToolResult

from .. import wire
from ..errors import ServiceProtocolError

ToolRefusalStatus = Literal[
    "denied",
    "approval_pending",
    "rejected",
    "expired",
    "cancelled",
    "replay",
    "upstream_error",
    "plan_limit",
    "invalid_request",
    "unauthorized",
    "unavailable",
]

@dataclass(frozen=True)
class CompletedCall:
    protected_action_id: str
    # None when the Gateway could not read the receipt back; the call did run.
    receipt_id: str | None
    receipt_object_id: str | None
    result_object_id: str | None
    # Only for a call decided under an observe window.
    policy: Mapping[str, Any] | None


@dataclass(frozen=True)
class ToolRefusal:
    status: ToolRefusalStatus
    code: str
    detail: str
    protected_action_id: str | None
    approval_request_id: str | None
    expires_at: str | None
    retryable: bool
    policy: Mapping[str, Any] | None
    # For refusals that ended with a receipt (rejected, cancelled, failed).
    receipt_id: str | None
    receipt_object_id: str | None
    result_object_id: str | None


@dataclass(frozen=True)
class ToolCallCompleted:
    result: CallToolResult
    service: CompletedCall
    ok: Literal[True] = True


@dataclass(frozen=True)
class ToolCallRefused:
    result: CallToolResult
    refusal: ToolRefusal
    ok: Literal[False] = False


ToolCallOutcome = Union[ToolCallCompleted, ToolCallRefused]


def _obj(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def read_tool_result(result: CallToolResult) -> ToolCallOutcome:
    """Reads a result by the Gateway's wire (countersign.wire): a refusal's
    ``structuredContent.service`` and ``_meta.service`` are checked member by member."""
    meta = _obj((_obj(result.meta) or {}).get("service"))
    if result.is_error:
        service = _obj((_obj(result.structured_content) or {}).get("service"))
        if service is None or wire.refusal_service_problem(service) is not None:
            raise ServiceProtocolError("an error result without structuredContent.service is not a Gateway refusal")
        # A refusal's receipt ids (rejected, cancelled, failed) are in _meta.service when it has a valid one.
        meta = meta if meta is not None and wire.result_service_meta_problem(meta) is None else {}
        return ToolCallRefused(
            result=result,
            refusal=ToolRefusal(
                status=service["status"],
                code=service["code"],
                detail=service["detail"],
                protected_action_id=service.get("protected_action_id") or meta.get("protected_action_id"),
                approval_request_id=service.get("approval_request_id"),
                expires_at=service.get("expires_at"),
                retryable=service.get("retryable") is True,
                policy=service.get("policy"),
                receipt_id=meta.get("receipt_id"),
                receipt_object_id=meta.get("receipt_object_id"),
                result_object_id=meta.get("result_object_id"),
            ),
        )
    if meta is None or wire.result_service_meta_problem(meta) is not None:
        raise ServiceProtocolError("a result without _meta.service is not a Gateway result")
    return ToolCallCompleted(
        result=result,
        service=CompletedCall(
            protected_action_id=meta["protected_action_id"],
            receipt_id=meta.get("receipt_id"),
            receipt_object_id=meta.get("receipt_object_id"),
            result_object_id=meta.get("result_object_id"),
            policy=meta.get("policy"),
        ),
    )
