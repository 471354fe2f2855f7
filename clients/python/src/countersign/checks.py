"""What is checked before anything is sent (SPEC 4.1 rule 6): the key format,
the Gateway URL and the request."""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Mapping
from urllib.parse import SplitResult, urlsplit

from .errors import ServiceAuthError, ServiceHttpError

# SPEC 5.1, exactly. fullmatch, not match with "$": "$" would accept a trailing newline.
_API_KEY = re.compile(r"svc_(live|test)_[a-z0-9]{12}_[A-Za-z0-9_-]{43}", re.ASCII)


def check_api_key(api_key: Any) -> str:
    if not isinstance(api_key, str) or _API_KEY.fullmatch(api_key) is None:
        # The message never repeats the key.
        raise ServiceAuthError(
            "MALFORMED_API_KEY",
            "the API key is not in the format svc_(live|test)_<12 characters>_<43 characters> (check for whitespace or a newline)",
        )
    return api_key


def check_gateway_url(gateway_url: Any) -> SplitResult:
    """https, or plain http to a loopback address only; no user info, query or fragment."""
    if not isinstance(gateway_url, str):
        raise ServiceHttpError("gateway_url must be a string; nothing was sent")
    try:
        url = urlsplit(gateway_url)
        hostname = url.hostname
        url.port  # noqa: B018 - raises for a malformed port
    except ValueError:
        raise ServiceHttpError("gateway_url is not a URL; nothing was sent") from None
    if not hostname or url.scheme not in ("http", "https"):
        raise ServiceHttpError("gateway_url is not an http(s) URL; nothing was sent")
    if url.scheme == "http" and not _is_loopback(hostname):
        raise ServiceHttpError("gateway_url must use https (plain http only to a loopback address); nothing was sent")
    if url.username is not None or url.password is not None or url.query or url.fragment:
        raise ServiceHttpError("gateway_url must not carry user info, a query or a fragment; nothing was sent")
    return url


def _is_loopback(hostname: str) -> bool:
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False


def check_request(tool: Any, arguments: Any, idempotency_key: Any, wait_seconds: Any) -> tuple[str, str] | dict[str, Any]:
    """The wire request, or (code, detail) of the invalid_request the Gateway would answer."""
    if not isinstance(tool, str) or not 1 <= len(tool) <= 128:
        return ("INVALID_REQUEST", "tool must be a string of 1 to 128 characters")
    args = {} if arguments is None else arguments
    if not isinstance(args, Mapping):
        return ("INVALID_REQUEST", "arguments must be a JSON object")
    if idempotency_key is not None and (not isinstance(idempotency_key, str) or not 1 <= len(idempotency_key) <= 200):
        return ("INVALID_REQUEST", "idempotency_key must be a string of 1 to 200 characters")
    if wait_seconds is not None and (isinstance(wait_seconds, bool) or not isinstance(wait_seconds, int) or wait_seconds < 0):
        return ("INVALID_REQUEST", "wait_seconds must be a whole number of seconds, 0 or more")
    bad = _bad_value(args, "arguments")
    if bad is not None:
        return ("INVALID_ARGUMENTS", bad)
    body: dict[str, Any] = {"tool": tool, "arguments": dict(args)}
    if idempotency_key is not None:
        body["idempotency_key"] = idempotency_key
    if wait_seconds is not None:
        body["wait_seconds"] = wait_seconds
    return body


def _bad_value(value: Any, path: str) -> str | None:
    """JSON values only, whole numbers only (send decimals as strings). Names the path, never the value."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return f"{path} is not a whole number (send decimals as strings)"
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            bad = _bad_value(item, f"{path}[{i}]")
            if bad is not None:
                return bad
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a member name that is not a string"
            bad = _bad_value(item, f"{path}.{key}")
            if bad is not None:
                return bad
        return None
    return f"{path} is not a JSON value"
