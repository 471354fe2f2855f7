"""The MCP helper: an MCP client for the Gateway on the official ``mcp`` SDK
(``pip install 'countersign[mcp]'``)."""

from .gateway_client import MAX_TOOL_PAGES, GatewayClient, connect_gateway
from .tool_result import CompletedCall, ToolCallCompleted, ToolCallOutcome, ToolCallRefused, ToolRefusal, ToolRefusalStatus

__all__ = [
    "MAX_TOOL_PAGES",
    "CompletedCall",
    "GatewayClient",
    "ToolCallCompleted",
    "ToolCallOutcome",
    "ToolCallRefused",
    "ToolRefusal",
    "ToolRefusalStatus",
    "connect_gateway",
]
