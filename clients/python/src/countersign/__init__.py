"""Countersign client: authorize_action for the Gateway's decision-only mode; the MCP helper is countersign.mcp (the mcp extra)."""

from .authorize import authorize_action, authorize_action_sync
from .errors import (
    ServiceAuthError,
    ServiceError,
    ServiceHttpError,
    ServiceProtocolError,
    ServiceRateLimitedError,
    ServiceRefusalError,
    ServiceUnavailableError,
)
from .result import AuthorizeResult, DecisionStatus

__all__ = [
    "AuthorizeResult",
    "DecisionStatus",
    "ServiceAuthError",
    "ServiceError",
    "ServiceHttpError",
    "ServiceProtocolError",
    "ServiceRateLimitedError",
    "ServiceRefusalError",
    "ServiceUnavailableError",
    "authorize_action",
    "authorize_action_sync",
]
