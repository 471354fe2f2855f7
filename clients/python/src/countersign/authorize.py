"""authorize_action and authorize_action_sync: POST {gateway_url}/v1/authorize
(SPEC 4.1 rule 6). Key, URL and request are checked before anything is sent;
every decision is returned as a result; only the errors of SPEC 7.4 are raised."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Mapping

from .checks import check_api_key, check_gateway_url, check_request
from .errors import ServiceAuthError, ServiceHttpError, ServiceRateLimitedError, ServiceUnavailableError
from .result import AuthorizeResult, invalid_request, read_result
from .transport import HttpAnswer, post_json

_BASE_TIMEOUT_SECONDS = 30.0


def authorize_action_sync(
    *,
    gateway_url: str,
    api_key: str,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    wait_seconds: int | None = None,
    timeout_seconds: float | None = None,
) -> AuthorizeResult:
    key = check_api_key(api_key)
    base = check_gateway_url(gateway_url)
    checked = check_request(tool, arguments, idempotency_key, wait_seconds)
    if isinstance(checked, tuple):
        return invalid_request(*checked)
    timeout = timeout_seconds if timeout_seconds is not None else _BASE_TIMEOUT_SECONDS + (wait_seconds or 0)
    body = json.dumps(checked, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    answer = post_json(base, "v1/authorize", {"Authorization": f"Bearer {key}"}, body, timeout)
    return _interpret(answer)


async def authorize_action(
    *,
    gateway_url: str,
    api_key: str,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    wait_seconds: int | None = None,
    timeout_seconds: float | None = None,
) -> AuthorizeResult:
    """The asyncio form: the same call, run in a worker thread so the event loop stays free while the Gateway holds a wait."""
    return await asyncio.to_thread(
        authorize_action_sync,
        gateway_url=gateway_url,
        api_key=api_key,
        tool=tool,
        arguments=arguments,
        idempotency_key=idempotency_key,
        wait_seconds=wait_seconds,
        timeout_seconds=timeout_seconds,
    )


def _interpret(answer: HttpAnswer) -> AuthorizeResult:
    status = answer.status
    if 300 <= status < 400:
        raise ServiceHttpError(
            f"the Gateway URL answered a redirect (HTTP {status}); redirects are never followed",
            http_status=status,
            location=answer.headers.get("Location"),
        )
    body = _parse(answer.text)
    if status == 200:
        return read_result(body)
    if status == 400:
        # The Gateway's invalid_request answers are decisions; a 400 from anything else is not.
        if _is_service_body(body):
            return read_result(body)
        raise ServiceHttpError("HTTP 400 that is not a Gateway answer", http_status=status)
    if status == 401:
        raise ServiceAuthError("UNAUTHORIZED", "the Gateway refused the API key (HTTP 401)")
    retry_after = _retry_after(answer, body)
    if status == 429:
        raise ServiceRateLimitedError("too many requests for this key (HTTP 429)", retry_after if retry_after is not None else 1)
    if status == 503 and _is_service_body(body) and isinstance(body.get("code"), str):
        code = body["code"]
        raise ServiceUnavailableError(
            code,
            f"the Gateway cannot decide now ({code}); nothing was recorded, retry later",
            outcome_unknown=False,
            retry_after_seconds=retry_after,
        )
    if status >= 500:
        raise ServiceUnavailableError("HTTP_ERROR", f"HTTP {status} from the Gateway URL; the outcome is unknown", outcome_unknown=True, retry_after_seconds=retry_after)
    raise ServiceHttpError(f"HTTP {status} from the Gateway URL", http_status=status)


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _is_service_body(body: Any) -> bool:
    return isinstance(body, dict) and body.get("allowed") is False and isinstance(body.get("status"), str)


def _retry_after(answer: HttpAnswer, body: Any) -> float | None:
    header = answer.headers.get("Retry-After")
    if header is not None:
        try:
            value = float(header)
            if value >= 0:
                return value
        except ValueError:
            pass
    member = body.get("retry_after_seconds") if isinstance(body, dict) else None
    return float(member) if isinstance(member, (int, float)) and not isinstance(member, bool) and member >= 0 else None
