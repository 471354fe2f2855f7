"""For MCP server authors (the mcp extra): make a server built on the official ``mcp`` package
service-aware (declare it, check Countersign's evidence, refuse what does not hold, attest results)."""

from .canonical import canonical_json, digest_of
from .evidence import CheckedEvidence, Refused, check_evidence
from .service_aware import (
    ATTESTATION_META_KEY,
    DECLARATION_CAPABILITY_KEY,
    EVIDENCE_META_KEY,
    REFUSAL_META_KEY,
    ServiceAware,
    service_aware,
)

__all__ = [
    "ATTESTATION_META_KEY",
    "DECLARATION_CAPABILITY_KEY",
    "EVIDENCE_META_KEY",
    "REFUSAL_META_KEY",
    "CheckedEvidence",
    "Refused",
    "ServiceAware",
    "canonical_json",
    "check_evidence",
    "digest_of",
    "service_aware",
]
