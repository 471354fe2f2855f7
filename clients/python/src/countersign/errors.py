"""The client errors of SPEC 7.4.

Decisions are results, never errors: these are raised only when no Gateway
decision could be read (a key that cannot be sent, a transport failure, an
answer that is not the Gateway's).
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of every client error; ``code`` names the reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ServiceAuthError(ServiceError):
    """``MALFORMED_API_KEY`` (nothing sent) or ``UNAUTHORIZED`` (the Gateway answered 401)."""


class ServiceRateLimitedError(ServiceError):
    """429: wait ``retry_after_seconds`` before asking again."""

    def __init__(self, message: str, retry_after_seconds: float) -> None:
        super().__init__("RATE_LIMITED", message)
        self.retry_after_seconds = retry_after_seconds


class ServiceUnavailableError(ServiceError):
    """The Gateway could not be reached or could not decide now.

    When ``outcome_unknown`` is true the request may have been processed:
    retry only with the same idempotency key.
    """

    def __init__(self, code: str, message: str, *, outcome_unknown: bool, retry_after_seconds: float | None = None) -> None:
        super().__init__(code, message)
        self.outcome_unknown = outcome_unknown
        self.retry_after_seconds = retry_after_seconds


class ServiceHttpError(ServiceError):
    """Another HTTP answer (404, 413, a redirect, never followed), or a URL refused before sending."""

    def __init__(self, message: str, *, http_status: int | None = None, location: str | None = None) -> None:
        super().__init__("HTTP_ERROR", message)
        self.http_status = http_status
        self.location = location


class ServiceProtocolError(ServiceError):
    """The answer is not a Gateway result; it is never taken for success."""

    def __init__(self, message: str) -> None:
        super().__init__("NOT_A_SERVICE_RESULT", message)


class ServiceRefusalError(ServiceError):
    """Raised only by integrations configured to raise on refusal; ``refusal`` is the result."""

    def __init__(self, code: str, message: str, refusal: Any) -> None:
        super().__init__(code, message)
        self.refusal = refusal
