"""One JSON POST with http.client, because the client must know how far a
request got: a failure before the request was handed to the network cannot
have been decided (outcome_unknown False); one after it may have been (True).
http.client never follows redirects, which would carry the key elsewhere."""

from __future__ import annotations

import http.client
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult

from .errors import ServiceProtocolError, ServiceUnavailableError

# Larger answers are not the Gateway's.
_MAX_ANSWER_BYTES = 1024 * 1024


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    headers: http.client.HTTPMessage
    text: str


def post_json(base: SplitResult, path: str, headers: dict[str, str], body: bytes, timeout_seconds: float) -> HttpAnswer:
    connection_class = http.client.HTTPSConnection if base.scheme == "https" else http.client.HTTPConnection
    conn = connection_class(base.hostname or "", base.port, timeout=timeout_seconds)
    target = base.path.rstrip("/") + "/" + path
    sent = False
    try:
        try:
            conn.connect()
        except (socket.timeout, TimeoutError):
            raise ServiceUnavailableError("TIMEOUT", "could not connect to the Gateway in time; nothing was sent", outcome_unknown=False) from None
        except OSError as err:
            raise ServiceUnavailableError("NETWORK_ERROR", f"could not reach the Gateway ({type(err).__name__}); nothing was sent", outcome_unknown=False) from None
        try:
            conn.request("POST", target, body=body, headers={**headers, "Content-Type": "application/json", "Accept": "application/json"})
            sent = True
            response = conn.getresponse()
            data = response.read(_MAX_ANSWER_BYTES + 1)
        except (socket.timeout, TimeoutError):
            raise ServiceUnavailableError("TIMEOUT", "no answer from the Gateway in time; the outcome is unknown", outcome_unknown=sent) from None
        except (OSError, http.client.HTTPException):
            raise ServiceUnavailableError(
                "NETWORK_ERROR",
                "the connection to the Gateway failed after the request was sent; the outcome is unknown"
                if sent
                else "the connection to the Gateway failed before the request was sent",
                outcome_unknown=sent,
            ) from None
        if len(data) > _MAX_ANSWER_BYTES:
            raise ServiceProtocolError("the answer is larger than any Gateway answer")
        return HttpAnswer(status=response.status, headers=response.headers, text=data.decode("utf-8", errors="replace"))
    finally:
        conn.close()
