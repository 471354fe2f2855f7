"""Service-aware tools for MCP servers built on the official ``mcp`` package, its low-level
``Server`` or its high-level ``MCPServer`` (mcp 1's ``FastMCP``): each call runs only with
Countersign's evidence for exactly its arguments, what it returns is attested with the server's
identity, and the server declares at initialize which identity it signs with (docs/evidence.md
section 11)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from mcp_types.methods import serialize_server_result
from pydantic import BaseModel

from .canonical import digest_of
from .evidence import Refused, check_evidence
from .signing import Signer, identity_genesis, sign_object, timestamp

EVIDENCE_META_KEY = "service/evidence"
ATTESTATION_META_KEY = "service/attestation"
REFUSAL_META_KEY = "service/refusal"
RESULT_CLAIM = "service/tool-result@0.1"
# Where a server declares it is service-aware: capabilities.experimental["service/evidence"].
DECLARATION_CAPABILITY_KEY = "service/evidence"
# The answers that carry the server's capabilities.
_DECLARING_METHODS = frozenset({"initialize", "server/discover"})

CallToolHandler = Callable[[Any, Any], Awaitable[Any]]


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(value or {})


def _refusal(reason: str, detail: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": f"Countersign evidence refused: {detail}"}],
        "isError": True,
        "_meta": {REFUSAL_META_KEY: {"reason": reason, "detail": detail}},
    }


class ServiceAware:
    """One server identity and the Gateways it takes calls from. ``seed``: the identity's 32-byte
    Ed25519 seed (keep it secret). ``gateways``: KIDs of the Countersign Gateways it trusts."""

    def __init__(self, seed: bytes, gateways: list[str], *, max_age_seconds: float = 60, now: Callable[[], datetime] | None = None) -> None:
        self._signer = Signer(seed)
        self._gateways = list(gateways)
        self._max_age = timedelta(seconds=max_age_seconds)
        self._now = now or (lambda: datetime.now(timezone.utc))
        # EXECUTIONs already acted on, kept while they could still be fresh: each runs once here.
        self._seen: dict[str, float] = {}

    @property
    def kid(self) -> str:
        return self._signer.kid

    def identity(self, organization_id: str, server_id: str, name: str | None = None) -> dict[str, Any]:
        """The seq-0 identity document to register as the MCP server's ``server_identity``."""
        subject = {"organization_id": organization_id, "id": server_id, "name": name}
        return identity_genesis(self._signer, "mcp_server", subject, self._now())

    def declare(self, server: Any) -> None:
        """Declares in ``server``'s capabilities (low-level ``Server`` or ``MCPServer``) that it is
        service-aware and signs with this identity, which the Cloud API checks against the
        identity registered for it. Through the SDK's public ``middleware`` list, which both
        servers expose: the ``initialize`` and ``server/discover`` answers gain the declaration."""
        server.middleware.append(self._declaring)

    def protect(self, server: Any) -> None:
        """Makes every tool of ``server`` service-aware: declares it, and checks the evidence and
        attests the result around its ``tools/call``. For ``MCPServer`` (call it once its tools are
        added or not: the tools are looked up per call) and the low-level ``Server``, through their
        public ``middleware`` list (never the SDK's private attributes)."""
        lookup = getattr(server, "get_request_handler", None)
        if lookup is not None and lookup("tools/call") is None:
            raise ValueError("the server has no tools/call handler to protect")
        self.declare(server)
        server.middleware.append(self._guarding)

    def call_tool(self, handler: CallToolHandler) -> CallToolHandler:
        """Wraps a low-level ``on_call_tool(ctx, params)`` handler (then ``.declare(server)``)."""

        async def wrapped(ctx: Any, params: Any) -> dict[str, Any]:
            admitted = self._admit(params.meta, params.name, params.arguments)
            if isinstance(admitted, dict):
                return admitted
            # Attest the result in the shape the SDK will put on the wire for this connection's protocol version.
            result = serialize_server_result("tools/call", ctx.protocol_version, _as_dict(await handler(ctx, params)))
            return self.attach(result, admitted)

        return wrapped

    def _declaration(self) -> dict[str, Any]:
        return {"service_evidence": "0.1", "server_kid": self.kid}

    async def _declaring(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method not in _DECLARING_METHODS:
            return result
        answer = _as_dict(result)
        capabilities = answer.get("capabilities")
        if not isinstance(capabilities, dict):
            return result
        experimental = capabilities.get("experimental") or {}
        return {
            **answer,
            "capabilities": {**capabilities, "experimental": {**experimental, DECLARATION_CAPABILITY_KEY: self._declaration()}},
        }

    async def _guarding(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params
        # Anything but a tools/call the SDK can read goes on unchanged: the SDK refuses a malformed one itself.
        if ctx.method != "tools/call" or not isinstance(params, Mapping) or not isinstance(params.get("name"), str):
            return await call_next(ctx)
        meta = params.get("_meta")
        # A _meta that is not an object carries no evidence: refused as missing, the tool never runs.
        admitted = self._admit(meta if isinstance(meta, Mapping) else None, params["name"], params.get("arguments"))
        if isinstance(admitted, dict):
            # Answered here, without the chain: in the wire shape of the connection's protocol version.
            return serialize_server_result("tools/call", ctx.protocol_version, admitted)
        # Below the middleware the SDK has already shaped the result for the wire: attest that.
        return self.attach(_as_dict(await call_next(ctx)), admitted)

    def _admit(self, meta: Any, tool: str, arguments: Any) -> str | dict[str, Any]:
        """The EXECUTION's id when the evidence admits this call, once; else the refusal to answer."""
        now = self._now()
        try:
            checked = check_evidence(
                dict(meta or {}).get(EVIDENCE_META_KEY),
                gateways=self._gateways,
                server_kid=self._signer.kid,
                tool=tool,
                arguments=arguments or {},
                now=now,
                max_age=self._max_age,
            )
        except Refused as refused:
            return _refusal(refused.reason, refused.detail)
        execution_id: str = checked.execution["id"]
        clock = time.monotonic()
        self._seen = {k: at for k, at in self._seen.items() if clock - at <= 2 * self._max_age.total_seconds()}
        if execution_id in self._seen:
            return _refusal("REPLAYED", "this EXECUTION was already run here")
        self._seen[execution_id] = clock
        return execution_id

    def attach(self, result: dict[str, Any], execution_id: str) -> dict[str, Any]:
        """The result with an ATTESTATION of it, for this EXECUTION, in ``_meta``."""
        meta = {k: v for k, v in dict(result.get("_meta") or {}).items() if k != ATTESTATION_META_KEY}
        plain = {k: v for k, v in result.items() if k != "_meta"}
        if meta:
            plain["_meta"] = meta
        body = {
            "protocol": "0.1",
            "type": "ATTESTATION",
            "actor": self._signer.kid,
            "on_behalf_of": None,
            "thread": None,
            "parent": None,
            "delegations": [],
            "issued_at": timestamp(self._now()),
            "payload": {"subject": execution_id, "claim": RESULT_CLAIM, "statement": {"result_digest": digest_of(plain)}},
        }
        return {**plain, "_meta": {**meta, ATTESTATION_META_KEY: sign_object(body, self._signer)}}


def service_aware(seed: bytes, gateways: list[str], **options: Any) -> ServiceAware:
    """``service_aware(seed, [gateway_kid]).protect(server)`` makes an ``MCPServer`` or a low-level ``Server``
    service-aware; ``.call_tool(handler)`` wraps one low-level ``on_call_tool`` (then ``.declare(server)``)."""
    return ServiceAware(seed, gateways, **options)
