"""The answer of POST /v1/authorize (SPEC 4.1) as a typed result.

Only ``allowed`` true (status ``authorized``) is permission to act: once,
before ``expires_at``, with exactly the authorized arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from .errors import ServiceProtocolError

DecisionStatus = Literal[
    "authorized",
    "approval_pending",
    "denied",
    "rejected",
    "expired",
    "cancelled",
    "plan_limit",
    "invalid_request",
    "unavailable",
]

_REFUSALS = {"approval_pending", "denied", "rejected", "expired", "cancelled", "plan_limit", "invalid_request", "unavailable"}
_AUTHORIZATION_IDS = (
    "protected_action_id",
    "expires_at",
    "task_object_id",
    "proposal_object_id",
    "receipt_object_id",
    "arguments_digest",
    "receipt_id",
)


@dataclass(frozen=True)
class AuthorizeResult:
    allowed: bool
    status: DecisionStatus
    code: str | None
    detail: str
    protected_action_id: str | None = None
    approval_request_id: str | None = None
    expires_at: str | None = None
    task_object_id: str | None = None
    proposal_object_id: str | None = None
    receipt_object_id: str | None = None
    receipt_id: str | None = None
    arguments_digest: str | None = None
    decision: str | None = None
    execution: str | None = None
    policy: Mapping[str, Any] | None = None
    note: str | None = None
    retryable: bool = False


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read_result(body: Any) -> AuthorizeResult:
    """Reads a Gateway answer; anything that is not one is NOT_A_SERVICE_RESULT, never success."""
    if not isinstance(body, dict):
        raise ServiceProtocolError("the answer is not a JSON object; it is not a Gateway result")
    policy = body.get("policy") if isinstance(body.get("policy"), dict) else None
    if body.get("allowed") is True:
        if (
            body.get("status") != "authorized"
            or body.get("decision") != "allow"
            or body.get("execution") != "caller"
            or any(not isinstance(body.get(m), str) for m in _AUTHORIZATION_IDS)
        ):
            raise ServiceProtocolError("an answer with allowed true lacks the members of an authorization; it is not a Gateway result")
        return AuthorizeResult(
            allowed=True,
            status="authorized",
            code=None,
            detail=_str(body.get("note")) or "authorized",
            protected_action_id=body["protected_action_id"],
            approval_request_id=_str(body.get("approval_request_id")),
            expires_at=body["expires_at"],
            task_object_id=body["task_object_id"],
            proposal_object_id=body["proposal_object_id"],
            receipt_object_id=body["receipt_object_id"],
            receipt_id=body["receipt_id"],
            arguments_digest=body["arguments_digest"],
            decision="allow",
            execution="caller",
            policy=policy,
            note=_str(body.get("note")),
        )
    status = body.get("status")
    if body.get("allowed") is not False or status not in _REFUSALS or not isinstance(body.get("code"), str):
        raise ServiceProtocolError("the answer has no decision (allowed, status and code); it is not a Gateway result")
    return AuthorizeResult(
        allowed=False,
        status=status,
        code=body["code"],
        detail=_str(body.get("detail")) or "",
        protected_action_id=_str(body.get("protected_action_id")),
        approval_request_id=_str(body.get("approval_request_id")),
        expires_at=_str(body.get("expires_at")),
        task_object_id=_str(body.get("task_object_id")),
        proposal_object_id=_str(body.get("proposal_object_id")),
        receipt_object_id=_str(body.get("receipt_object_id")),
        receipt_id=_str(body.get("receipt_id")),
        policy=policy,
        retryable=body.get("retryable") is True,
    )


def invalid_request(code: str, detail: str) -> AuthorizeResult:
    """A request the Gateway would refuse as sent, answered here without sending it."""
    return AuthorizeResult(allowed=False, status="invalid_request", code=code, detail=f"{detail}; nothing was sent")
