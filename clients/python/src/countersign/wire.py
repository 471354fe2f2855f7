"""The Gateway's wire as the client checks it (SPEC 4.1, 4.2): the members of each answer, their
types, enumerations and formats, as protocol/src/wire/gateway declares them. The tests check these
functions against the JSON Schemas generated from those declarations (tests/schemas/): every shape
the schemas allow is accepted, every shape they forbid is refused, except members the client does
not know, which it ignores so that a later Gateway may add one.

Each ``*_problem`` function returns None for a valid value, else the first member that is not (its
name, never its value).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

Check = Callable[[Any], bool]

_UUID = re.compile(r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$")
_OBJECT_ID = re.compile(r"^ko_[0-9a-f]{64}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# A calendar date and time in UTC with a Z, as the Gateway writes times (JavaScript's toISOString).
_INSTANT = re.compile(
    r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z))$",
    re.ASCII,
)

AUTHORIZE_REFUSAL_STATUSES = frozenset(
    {"approval_pending", "denied", "rejected", "expired", "cancelled", "plan_limit", "invalid_request", "unauthorized", "unavailable"}
)
GATEWAY_STATUSES = AUTHORIZE_REFUSAL_STATUSES | {"replay", "upstream_error"}
AGENT_EXPLANATION_SCHEMA = "service.cloud/agent-explanation@1"


def _string(v: Any) -> bool:
    return isinstance(v, str)


def _boolean(v: Any) -> bool:
    return isinstance(v, bool)


def _matching(pattern: re.Pattern[str]) -> Check:
    return lambda v: isinstance(v, str) and pattern.match(v) is not None


def _const(value: Any) -> Check:
    return lambda v: type(v) is type(value) and v == value


def _one_of(values: frozenset[str]) -> Check:
    return lambda v: isinstance(v, str) and v in values


def _nullable(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _whole(minimum: int) -> Check:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= minimum


uuid = _matching(_UUID)
object_id = _matching(_OBJECT_ID)
digest = _matching(_DIGEST)
instant = _matching(_INSTANT)


def _object(required: Mapping[str, Check], optional: Mapping[str, Check]) -> Callable[[Any], str | None]:
    def problem(value: Any) -> str | None:
        if not isinstance(value, dict):
            return "not a JSON object"
        for name, check in required.items():
            if name not in value or not check(value[name]):
                return name
        for name, check in optional.items():
            if name in value and not check(value[name]):
                return name
        return None

    return problem


observe_policy_problem = _object(
    {"enforcement": _const("observe"), "relaxed": _boolean, "observe_ends_at": _nullable(instant)},
    {"policy_effect": _nullable(_one_of(frozenset({"allow", "require_approval", "deny"}))), "rule_id": _nullable(_string)},
)
# The members every agent explanation has (SPEC 2.9); the others stay open.
agent_explanation_problem = _object(
    {"schema": _const(AGENT_EXPLANATION_SCHEMA), "disclosure": _one_of(frozenset({"rule", "conditions"})), "message": _string},
    {},
)


def _valid(problem: Callable[[Any], str | None]) -> Check:
    return lambda v: problem(v) is None


authorization_problem = _object(
    {
        "allowed": _const(True),
        "status": _const("authorized"),
        "decision": _const("allow"),
        "execution": _const("caller"),
        "protected_action_id": uuid,
        "approval_request_id": _nullable(uuid),
        "expires_at": instant,
        "task_object_id": object_id,
        "proposal_object_id": object_id,
        "receipt_object_id": object_id,
        "receipt_id": uuid,
        "arguments_digest": digest,
        "policy": _nullable(_valid(observe_policy_problem)),
        "note": _string,
    },
    {},
)

refusal_problem = _object(
    {"allowed": _const(False), "status": _one_of(AUTHORIZE_REFUSAL_STATUSES), "code": _string, "detail": _string},
    {
        "protected_action_id": uuid,
        "approval_request_id": _nullable(uuid),
        "expires_at": _nullable(instant),
        "arguments_digest": digest,
        "task_object_id": _nullable(object_id),
        "proposal_object_id": _nullable(object_id),
        "receipt_object_id": _nullable(object_id),
        "receipt_id": _nullable(uuid),
        "retryable": _boolean,
        "policy": _valid(agent_explanation_problem),
        "why": _string,
        "retry_after_seconds": _whole(1),
    },
)

# structuredContent.service of a tools/call refusal (SPEC 4.2).
refusal_service_problem = _object(
    {"status": _one_of(GATEWAY_STATUSES), "code": _string, "detail": _string},
    {
        "protected_action_id": uuid,
        "approval_request_id": _nullable(uuid),
        "expires_at": _nullable(instant),
        "retryable": _boolean,
        "policy": _valid(agent_explanation_problem),
        "error_code": _string,
        "task_object_id": _nullable(object_id),
        "proposal_object_id": _nullable(object_id),
        "receipt_object_id": _nullable(object_id),
        "receipt_id": _nullable(uuid),
    },
)

# _meta.service of a tools/call result (SPEC 4.2).
result_service_meta_problem = _object(
    {"protected_action_id": uuid},
    {"receipt_id": uuid, "receipt_object_id": object_id, "result_object_id": object_id, "policy": _valid(observe_policy_problem)},
)
