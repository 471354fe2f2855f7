"""A service-aware MCP server's check of the evidence the Gateway hands it with a tools/call
(docs/evidence.md section 11): the same rules as ``checkUpstreamEvidence`` of
``@countersign/protocol/upstream``, refusing with the first reason that applies."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .canonical import canonical_bytes, canonical_json, digest_of
from .signing import from_b64url, kid_of, object_id, time_of, verify

_SIGNERS = {"TASK": "gateway", "PROPOSAL": "gateway", "EXECUTION": "gateway", "APPROVAL": "person", "DELEGATION": "principal"}


class Refused(Exception):
    """The evidence does not hold; ``reason`` is one of docs/evidence.md section 11's."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class CheckedEvidence:
    task: dict[str, Any]
    approval: dict[str, Any] | None
    execution: dict[str, Any]


@dataclass
class _Identity:
    public_key: bytes
    actor_type: str
    final_at: datetime | None


def _identities(documents: list[Any]) -> dict[str, _Identity]:
    logs: dict[str, list[dict[str, Any]]] = {}
    for d in documents:
        body = d["body"]
        key = from_b64url(body["public_key"])
        sig = from_b64url(d["signature"])
        if key is None or sig is None or kid_of(key) != body["kid"] or not verify(key, sig, canonical_bytes(body)):
            raise Refused("SIGNATURE_INVALID", "an identity document does not verify")
        logs.setdefault(body["kid"], []).append(body)
    out: dict[str, _Identity] = {}
    for kid, bodies in logs.items():
        bodies.sort(key=lambda b: b["seq"])
        final_at = None
        for i, b in enumerate(bodies):
            prev_ok = b["prev"] is None if i == 0 else b["prev"] == digest_of(bodies[i - 1])
            if b["seq"] != i or not prev_ok or b["actor_type"] != bodies[0]["actor_type"] or final_at is not None:
                raise Refused("SIGNATURE_INVALID", f"the identity log of {kid} is broken or equivocates")
            if b["status"] != "active":
                final_at = time_of(b["issued_at"])
        out[kid] = _Identity(from_b64url(bodies[0]["public_key"]) or b"", bodies[0]["actor_type"], final_at)
    return out


def _authentic(o: dict[str, Any], identities: dict[str, _Identity]) -> None:
    body = o["body"]
    who = identities.get(body["actor"])
    sig = from_b64url(o["signature"])
    if who is None or sig is None or o["id"] != object_id(body) or not verify(who.public_key, sig, canonical_bytes(body)):
        raise Refused("SIGNATURE_INVALID", f"object {o['id']} does not verify")
    if _SIGNERS.get(body["type"]) != who.actor_type:
        raise Refused("SIGNATURE_INVALID", f"a {who.actor_type} identity may not sign a {body['type']}")
    if who.final_at is not None and time_of(body["issued_at"]) >= who.final_at:
        raise Refused("SIGNATURE_INVALID", f"{body['actor']} was replaced or revoked before it signed {o['id']}")


def check_evidence(
    raw: Any, *, gateways: list[str], server_kid: str, tool: str, arguments: dict[str, Any], now: datetime, max_age: timedelta
) -> CheckedEvidence:
    """Returns the checked path, or raises ``Refused``."""
    if raw is None:
        raise Refused("EVIDENCE_MISSING", "the call carries no evidence")
    try:
        if raw["service_evidence"] != "0.1":
            raise Refused("EVIDENCE_MALFORMED", "the evidence is not a service_evidence 0.1 object")
        identities = _identities(list(raw["identities"]))
        objects = list(raw["objects"])
        for o in objects:
            _authentic(o, identities)
        return _check_path(objects, gateways, server_kid, tool, arguments, now, max_age)
    except Refused:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise Refused("EVIDENCE_MALFORMED", "the evidence is not a service_evidence 0.1 object") from err


def _check_path(
    objects: list[dict[str, Any]], gateways: list[str], server_kid: str, tool: str, arguments: dict[str, Any], now: datetime, max_age: timedelta
) -> CheckedEvidence:
    types = [o["body"]["type"] for o in objects]
    has_approval = len(types) > 2 and types[2] == "APPROVAL"
    steps = objects[: 4 if has_approval else 3]
    expected = ["TASK", "PROPOSAL", "APPROVAL", "EXECUTION"] if has_approval else ["TASK", "PROPOSAL", "EXECUTION"]
    if [o["body"]["type"] for o in steps] != expected:
        raise Refused("CHAIN_INVALID", "the evidence does not start with TASK, PROPOSAL, (APPROVAL,) EXECUTION")
    task, proposal, execution = steps[0], steps[1], steps[-1]
    approval = steps[2] if has_approval else None
    for o in (task, proposal, execution):
        if o["body"]["actor"] not in gateways:
            raise Refused("GATEWAY_UNTRUSTED", f"{o['body']['type']} is signed by {o['body']['actor']}, not a trusted Gateway")
    for prev, s in zip(steps, steps[1:]):
        b = s["body"]
        if b["thread"] != task["id"] or b["parent"] != prev["id"]:
            raise Refused("CHAIN_INVALID", f"{b['type']} does not follow {prev['body']['type']}")
        if b["on_behalf_of"] != task["body"]["on_behalf_of"]:
            raise Refused("CHAIN_INVALID", f"{b['type']} acts for another principal")
        if time_of(b["issued_at"]) < time_of(prev["body"]["issued_at"]):
            raise Refused("CHAIN_INVALID", f"{b['type']} is dated before its parent")
    t = task["body"]["payload"]
    call = canonical_json({"tool": t["tool"], "action": t["action"], "arguments_digest": t["arguments_digest"], "amount": t["amount"]})
    for s in steps[1:]:
        if canonical_json(s["body"]["payload"]["call"]) != call:
            raise Refused("CHAIN_INVALID", f"{s['body']['type']} restates another call than the TASK")
    if t["execution"] != "gateway":
        raise Refused("CHAIN_INVALID", "the TASK is not executed by a Gateway")

    e = execution["body"]
    if e["payload"]["server_kid"] != server_kid:
        raise Refused("SERVER_MISMATCH", "the EXECUTION names another MCP server identity")
    if e["payload"]["upstream_tool"] != tool:
        raise Refused("TOOL_MISMATCH", f"the EXECUTION is for tool {e['payload']['upstream_tool']}, not {tool}")
    try:
        digest = digest_of(arguments)
    except (TypeError, ValueError) as err:
        raise Refused("ARGUMENTS_MISMATCH", "the arguments are not canonical JSON") from err
    if digest != t["arguments_digest"]:
        raise Refused("ARGUMENTS_MISMATCH", "the arguments are not the ones the TASK was decided on")

    p = proposal["body"]["payload"]
    request = p["approval_request"]
    if request is not None:
        if approval is None:
            raise Refused("APPROVAL_MISSING", "the decision required an approval and the evidence carries none")
        if approval["body"]["payload"]["approval_request_id"] != request["id"]:
            raise Refused("APPROVAL_MISSING", "the APPROVAL answers another approval request")
        if time_of(approval["body"]["issued_at"]) >= time_of(request["expires_at"]):
            raise Refused("EXPIRED", "the approval came after its request expired")
        until = approval["body"]["payload"]["expires_at"]
    else:
        if approval is not None:
            raise Refused("CHAIN_INVALID", "an APPROVAL without an approval request")
        if p["policy_effect"] != "allow" and p["enforcement"] == "enforce":
            raise Refused("CHAIN_INVALID", "the decision did not allow the call")
        until = p["expires_at"]
    executed_at = time_of(e["issued_at"])
    if executed_at >= time_of(until):
        raise Refused("EXPIRED", f"the EXECUTION was signed after the authorization expired ({until})")
    if abs(now - executed_at) > max_age:
        raise Refused("EXPIRED", f"the EXECUTION was signed at {e['issued_at']}, too far from now")

    delegations = {o["id"]: o["body"] for o in objects if o["body"]["type"] == "DELEGATION"}
    for did in e["delegations"]:
        d = delegations.get(did)
        if d is None:
            raise Refused("DELEGATION_INVALID", f"delegation {did} is not in the evidence")
        dp = d["payload"]
        action = t["action"]
        grants = any(g == "*" or g == action or (g.endswith(".*") and action.startswith(g[:-1])) for g in dp["permissions"])
        if (
            d["actor"] != task["body"]["on_behalf_of"]
            or dp["agent_id"] != t["agent"]["id"]
            or time_of(d["issued_at"]) > executed_at
            or not grants
            or executed_at >= time_of(dp["expires_at"])
        ):
            raise Refused("DELEGATION_INVALID", f"delegation {did} does not grant {action} to this agent at the EXECUTION")
    return CheckedEvidence(task=task, approval=approval, execution=execution)
