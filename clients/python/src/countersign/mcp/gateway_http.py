"""The HTTP transport under the MCP SDK's Streamable HTTP client: it never
leaves the Gateway's origin, never follows a redirect, and turns the Gateway's
HTTP-level answers into the client errors (countersign.errors) before the SDK sees
them, so callers get one set of error classes for both protocols.

The SDK turns any HTTP failure into a JSON-RPC error that no longer says what
happened, and a transport exception would end its whole connection. So a
failure is kept here under a fresh token, and the SDK gets a JSON-RPC error
for that request naming the token; the client raises the kept error in its
place (see ``failure_of``).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx2

from ..errors import (
    ServiceAuthError,
    ServiceError,
    ServiceHttpError,
    ServiceRateLimitedError,
    ServiceUnavailableError,
)

_FAILURE_MEMBER = "countersign_failure"


class GatewayHttpTransport(httpx2.AsyncBaseTransport):
    def __init__(self, origin: tuple[str, str, int | None], inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._origin = origin
        self._inner = inner if inner is not None else httpx2.AsyncHTTPTransport()
        self._failures: dict[str, ServiceError] = {}

    def failure_of(self, data: Any) -> ServiceError | None:
        """The error kept for a JSON-RPC error this transport made up, else None."""
        token = data.get(_FAILURE_MEMBER) if isinstance(data, dict) else None
        return self._failures.pop(token, None) if isinstance(token, str) else None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        if (url.scheme, url.host, url.port) != self._origin:
            return self._fail(request, ServiceHttpError(f"refused to send a request to {url.scheme}://{url.host}, not the Gateway's origin; nothing was sent"))
        try:
            response = await self._inner.handle_async_request(request)
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as err:
            # The connection was never made: nothing reached the Gateway.
            return self._fail(request, ServiceUnavailableError("NETWORK_ERROR", f"could not reach the Gateway ({type(err).__name__}); nothing was sent", outcome_unknown=False))
        except httpx2.TransportError:
            return self._fail(request, ServiceUnavailableError("NETWORK_ERROR", "the connection to the Gateway failed; the outcome is unknown", outcome_unknown=True))
        # The SDK opens a GET stream for server messages; the stateless Gateway answers 405, which it expects.
        if request.method != "POST":
            return response
        status = response.status_code
        if status < 300:
            return response
        try:
            await response.aread()
        except httpx2.TransportError:
            pass
        finally:
            await response.aclose()
        if status < 400:
            return self._fail(request, ServiceHttpError(f"the Gateway URL answered a redirect (HTTP {status}); redirects are never followed", http_status=status, location=response.headers.get("location")))
        return self._fail(request, _http_error(response))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _fail(self, request: httpx2.Request, error: ServiceError) -> httpx2.Response:
        request_id = _request_id(request)
        if request_id is None:
            # A notification: the SDK waits for no answer, so there is no one to tell.
            return httpx2.Response(202, request=request)
        token = uuid.uuid4().hex
        self._failures[token] = error
        body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32000, "message": str(error), "data": {_FAILURE_MEMBER: token}}}
        return httpx2.Response(200, json=body, request=request)


def _request_id(request: httpx2.Request) -> Any:
    try:
        message = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    return message.get("id") if isinstance(message, dict) else None


def _http_error(response: httpx2.Response) -> ServiceError:
    status = response.status_code
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    data = data if isinstance(data, dict) else {}
    service = data.get("service") if isinstance(data.get("service"), dict) else {}
    retry_after = _retry_after(response.headers.get("retry-after"), data.get("retry_after_seconds"))
    if status == 401:
        return ServiceAuthError("UNAUTHORIZED", "the Gateway refused the API key (HTTP 401)")
    if status == 429:
        return ServiceRateLimitedError("too many requests for this key (HTTP 429)", retry_after if retry_after is not None else 1)
    code = service.get("code")
    if status == 503 and isinstance(code, str):
        return ServiceUnavailableError(code, f"the Gateway cannot process requests now ({code}); nothing was recorded", outcome_unknown=False, retry_after_seconds=retry_after)
    if status >= 500:
        return ServiceUnavailableError("HTTP_ERROR", f"HTTP {status} from the Gateway; the outcome is unknown", outcome_unknown=True, retry_after_seconds=retry_after)
    return ServiceHttpError(f"HTTP {status} from the Gateway", http_status=status)


def _retry_after(header: str | None, member: Any) -> float | None:
    if header is not None:
        try:
            value = float(header)
            if value >= 0:
                return value
        except ValueError:
            pass
    if isinstance(member, (int, float)) and not isinstance(member, bool) and member >= 0:
        return float(member)
    return None
