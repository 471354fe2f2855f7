"""The answer of POST /v1/authorize (SPEC 4.1) as a typed result.

Only ``allowed`` true (status ``authorized``) is permission to act: once,
before ``expires_at``, with exactly the authorized arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from . import wire
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
    "unauthorized",
    "unavailable",
]


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


def read_result(body: Any) -> AuthorizeResult:
    """Reads a Gateway answer; anything that is not one is NOT_A_SERVICE_RESULT, never success.

    The checks are those of the Gateway's wire (protocol/src/wire/gateway, published as JSON
    Schema; the tests check this function against it): required members, types, enumerations and
    id formats. Members it does not know are ignored, so a later Gateway may add one.
    """
    if not isinstance(body, dict):
        raise ServiceProtocolError("the answer is not a JSON object; it is not a Gateway result")
    if body.get("allowed") is True:
        bad = wire.authorization_problem(body)
        if bad:
            raise ServiceProtocolError(f"an answer with allowed true lacks the members of an authorization ({bad}); it is not a Gateway result")
        return AuthorizeResult(
            allowed=True,
            status="authorized",
            code=None,
            detail=body["note"],
            protected_action_id=body["protected_action_id"],
            approval_request_id=body["approval_request_id"],
            expires_at=body["expires_at"],
            task_object_id=body["task_object_id"],
            proposal_object_id=body["proposal_object_id"],
            receipt_object_id=body["receipt_object_id"],
            receipt_id=body["receipt_id"],
            arguments_digest=body["arguments_digest"],
            decision="allow",
            execution="caller",
            policy=body["policy"],
            note=body["note"],
        )
    bad = wire.refusal_problem(body)
    if bad:
        raise ServiceProtocolError(f"the answer has no decision (allowed, status, code and detail: {bad}); it is not a Gateway result")
    return AuthorizeResult(
        allowed=False,
        status=body["status"],
        code=body["code"],
        detail=body["detail"],
        protected_action_id=body.get("protected_action_id"),
        approval_request_id=body.get("approval_request_id"),
        expires_at=body.get("expires_at"),
        task_object_id=body.get("task_object_id"),
        proposal_object_id=body.get("proposal_object_id"),
        receipt_object_id=body.get("receipt_object_id"),
        receipt_id=body.get("receipt_id"),
        policy=body.get("policy"),
        retryable=body.get("retryable") is True,
    )


def invalid_request(code: str, detail: str) -> AuthorizeResult:
    """A request the Gateway would refuse as sent, answered here without sending it."""
    return AuthorizeResult(allowed=False, status="invalid_request", code=code, detail=f"{detail}; nothing was sent")
