"""The Python client against the JSON Schemas generated from the Gateway's wire
(protocol/src/wire/gateway, written to tests/schemas/ by `make openapi`; a vitest test
fails when they are stale): (a) every answer a real Gateway gives validates, and the
client reads it; (b) the client's parsing accepts every shape the schemas allow
(examples generated from the schemas, one per variant of each member) and refuses
every shape they forbid (each required member dropped, each member given a value its
schema refuses), except members it does not know, which it ignores by design."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from jsonschema import Draft202012Validator
from mcp.types import CallToolResult

from countersign import ServiceProtocolError, authorize_action_sync
from countersign.mcp import ToolCallCompleted, ToolCallRefused, connect_gateway
from countersign.mcp.tool_result import read_tool_result
from countersign.result import read_result

SCHEMAS = Path(__file__).parent / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


ANSWER = validator("authorize-answer.json")
REFUSAL_CONTENT = validator("tool-refusal-content.json")
RESULT_META = validator("result-service-meta.json")


def errors(v: Draft202012Validator, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(value)]


# (a) What a real Gateway answers.


def post(url: str, key: str, body: Any) -> tuple[int, Any]:
    req = urllib.request.Request(f"{url}/v1/authorize", data=json.dumps(body).encode(), method="POST", headers={"content-type": "application/json", "authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def call(gw: Any, amount: int) -> dict[str, Any]:
    return {"tool": gw.tool, "arguments": {"order": "o", "amount": amount}, "idempotency_key": f"wire-{uuid.uuid4()}"}


def same_through_the_client(gw: Any, body: dict[str, Any]) -> Any:
    """The client's own call for the same request (same idempotency key: the same recorded decision)."""
    return authorize_action_sync(gateway_url=gw.url, api_key=gw.key, tool=body["tool"], arguments=body["arguments"], idempotency_key=body["idempotency_key"])


def test_every_decision_of_a_real_gateway_validates_and_the_client_reads_it_as_its_own_call_does(gateway: Any) -> None:
    allowed, pending, to_reject, to_cancel, denied = (call(gateway, a) for a in (40, 500, 501, 502, 20000))
    first: dict[str, dict[str, Any]] = {}
    for name, body in (("allowed", allowed), ("pending", pending), ("to_reject", to_reject), ("to_cancel", to_cancel), ("denied", denied)):
        status, answer = post(gateway.url, gateway.key, body)
        assert status == 200, answer
        first[name] = answer
        assert errors(ANSWER, answer) == []
        assert read_result(answer) == same_through_the_client(gateway, body)
    assert [first[n]["status"] for n in first] == ["authorized", "approval_pending", "approval_pending", "approval_pending", "denied"]
    assert first["denied"]["policy"]["schema"] == "service.cloud/agent-explanation@1"
    gateway.control("decide", approval_request_id=first["pending"]["approval_request_id"], type="APPROVAL")
    gateway.control("decide", approval_request_id=first["to_reject"]["approval_request_id"], type="REJECTION")
    gateway.control("cancel", protected_action_id=first["to_cancel"]["protected_action_id"])
    gateway.control("expire", protected_action_id=first["allowed"]["protected_action_id"])
    for body, expected in ((pending, "authorized"), (to_reject, "rejected"), (to_cancel, "cancelled"), (allowed, "expired")):
        status, answer = post(gateway.url, gateway.key, body)
        assert (status, answer["status"]) == (200, expected), answer
        assert errors(ANSWER, answer) == []
        assert read_result(answer) == same_through_the_client(gateway, body)


def test_every_refusal_before_a_decision_validates(gateway: Any) -> None:
    limited = {"tool": gateway.info["limited_tool"], "arguments": {"amount": 5}}
    throttled = {"tool": gateway.info["throttled_tool"], "arguments": {"amount": 1}}
    answers = [
        (200, post(gateway.url, gateway.info["limited_key"], limited)),
        (400, post(gateway.url, gateway.key, {"tool": "no_such_tool", "arguments": {}})),
        (400, post(gateway.url, gateway.key, {"tool": gateway.tool, "surprise": 1})),
        (401, post(gateway.url, gateway.key[:-1] + ("A" if gateway.key[-1] != "A" else "B"), call(gateway, 1))),
        (429, post(gateway.url, gateway.info["throttled_key"], throttled)),
        (503, post(gateway.busy_url, gateway.key, call(gateway, 1))),
    ]
    for expected, (status, answer) in answers:
        assert status == expected, answer
        assert errors(ANSWER, answer) == [], answer
        assert read_result(answer).code == answer["code"]


@pytest.mark.anyio
async def test_a_completed_calls_meta_service_and_a_refusals_structured_content_validate(gateway: Any) -> None:
    async with connect_gateway(gateway_url=gateway.url, api_key=gateway.key) as gw:
        done = await gw.call_tool(gateway.mcp_tool, {"order": "o-w", "amount": 40}, idempotency_key=f"wire-{uuid.uuid4()}")
        refused = await gw.call_tool(gateway.mcp_tool, {"order": "o-w", "amount": 20000})
    assert isinstance(done, ToolCallCompleted) and isinstance(refused, ToolCallRefused)
    assert done.result.meta is not None and errors(RESULT_META, done.result.meta["service"]) == []
    assert errors(REFUSAL_CONTENT, refused.result.structured_content) == []
    assert refused.refusal.policy is not None


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# (b) Every shape the schemas allow, and each they forbid.

# A valid string for each pattern the schemas use; a new pattern fails here until it has one.
SAMPLES = {
    "^ko_[0-9a-f]{64}$": "ko_" + "a1" * 32,
    "^sha256:[0-9a-f]{64}$": "sha256:" + "b2" * 32,
}
UUID_SAMPLE = "0b7f3c52-1d1e-4c3a-9d57-7f0f6c1c2a10"
TIME_SAMPLE = "2026-11-27T15:00:00.000Z"
WRONG = [12345, "not-a-valid-value", True, None, [], {}]


def sample_string(s: dict[str, Any]) -> str:
    if s.get("format") == "uuid":
        return UUID_SAMPLE
    if s.get("format") == "date-time":
        return TIME_SAMPLE
    if "pattern" in s:
        return SAMPLES[s["pattern"]]
    return "text"


def examples(s: dict[str, Any]) -> list[Any]:
    """Valid values of a schema: one per const, enum value, branch, type and member variant."""
    if "const" in s:
        return [s["const"]]
    if "enum" in s:
        return list(s["enum"])
    if "anyOf" in s:
        return [v for branch in s["anyOf"] for v in examples(branch)]
    types = s.get("type")
    if isinstance(types, list):
        return [v for t in types for v in examples({**s, "type": t})]
    if types == "string":
        return [sample_string(s)]
    if types == "integer":
        return [max(s.get("minimum", 0), 0)]
    if types == "boolean":
        return [True, False]
    if types == "null":
        return [None]
    if types == "object":
        return object_examples(s)
    return ["anything"]


def object_examples(s: dict[str, Any]) -> list[dict[str, Any]]:
    props: dict[str, Any] = s.get("properties", {})
    required = s.get("required", [])
    minimal = {name: examples(props[name])[0] for name in required}
    full = {name: examples(sub)[0] for name, sub in props.items()}
    out = [minimal, full]
    for name, sub in props.items():
        out += [{**full, name: v} for v in examples(sub)[1:]]
    return out


def forbidden(s: dict[str, Any], value: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each way to break an object example: a required member dropped, a member given a value its schema refuses."""
    props: dict[str, Any] = s.get("properties", {})
    for name in s.get("required", []):
        yield f"without {name}", {k: v for k, v in value.items() if k != name}
    for name, sub in props.items():
        wrong = next((w for w in WRONG if not Draft202012Validator(sub).is_valid(w)), None)
        if wrong is not None:
            yield f"{name}={wrong!r}", {**value, name: wrong}


def variants(v: Draft202012Validator) -> list[dict[str, Any]]:
    """The object schemas of a document: its anyOf branches, or itself."""
    return v.schema.get("anyOf", [v.schema])


def check_allowed_and_forbidden(v: Draft202012Validator, wrap: Callable[[dict[str, Any]], Any], read: Callable[[Any], Any]) -> int:
    checked = 0
    for variant in variants(v):
        for example in object_examples(variant):
            assert errors(v, example) == [], example  # the generator's own check
            read(wrap(example))
            checked += 1
            for why, broken in forbidden(variant, example):
                assert not v.is_valid(broken), why
                with pytest.raises(ServiceProtocolError):
                    read(wrap(broken))
                checked += 1
    return checked


def test_read_result_accepts_what_the_answer_schema_allows_and_refuses_what_it_forbids() -> None:
    assert check_allowed_and_forbidden(ANSWER, lambda body: body, read_result) > 50


def test_read_result_keeps_every_member_it_is_given() -> None:
    for variant in variants(ANSWER):
        full = object_examples(variant)[1]
        r = read_result(full)
        assert (r.allowed, r.status, r.protected_action_id, r.expires_at, r.policy) == (full["allowed"], full["status"], full.get("protected_action_id"), full.get("expires_at"), full.get("policy"))


def refusal_result(content: Any) -> CallToolResult:
    return CallToolResult.model_validate({"content": [], "isError": True, "structuredContent": content})


def completed_result(service: Any) -> CallToolResult:
    return CallToolResult.model_validate({"content": [], "_meta": {"service": service}})


def test_read_tool_result_accepts_what_the_refusal_schema_allows_and_refuses_what_it_forbids() -> None:
    service_schema = Draft202012Validator(REFUSAL_CONTENT.schema["properties"]["service"])
    assert check_allowed_and_forbidden(service_schema, lambda service: refusal_result({"service": service}), read_tool_result) > 30
    with pytest.raises(ServiceProtocolError):
        read_tool_result(refusal_result({}))


def test_read_tool_result_accepts_what_the_meta_schema_allows_and_refuses_what_it_forbids() -> None:
    assert check_allowed_and_forbidden(RESULT_META, completed_result, read_tool_result) > 10


def test_a_member_the_client_does_not_know_is_ignored_not_refused() -> None:
    # The schemas list what the Gateway sends today (additionalProperties false); a later Gateway
    # may add a member, which must not turn its answers into NOT_A_SERVICE_RESULT.
    authorization = object_examples(variants(ANSWER)[0])[0]
    later = {**authorization, "added_later": 1}
    assert not ANSWER.is_valid(later)
    assert read_result(later) == read_result(authorization)
