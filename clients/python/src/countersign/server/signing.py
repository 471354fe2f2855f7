"""Ed25519 keys, KIDs, identity documents and signed objects of the evidence protocol
(docs/evidence.md sections 2 to 4), on the ``cryptography`` package."""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime, timezone
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .canonical import canonical_bytes


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def from_b64url(text: str) -> bytes | None:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        return None
    # Exactly one spelling: no padding, no stray bits.
    return raw if b64url(raw) == text else None


def kid_of(public_key: bytes) -> str:
    return "kid_" + hashlib.sha256(public_key).hexdigest()


def timestamp(at: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.sssZ``."""
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def time_of(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


class Signer:
    """An Ed25519 key from its 32-byte seed."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public_key = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.kid = kid_of(self.public_key)

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


def verify(public_key: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
        return True
    except (InvalidSignature, ValueError):
        return False


def object_id(body: dict[str, Any]) -> str:
    return "ko_" + hashlib.sha256(canonical_bytes(body)).hexdigest()


def sign_object(body: dict[str, Any], signer: Signer) -> dict[str, Any]:
    if body["actor"] != signer.kid:
        raise ValueError("the signer must be the body's actor")
    data = canonical_bytes(body)
    return {"id": "ko_" + hashlib.sha256(data).hexdigest(), "body": body, "signature": b64url(signer.sign(data))}


def identity_genesis(signer: Signer, actor_type: str, subject: dict[str, Any], issued_at: datetime) -> dict[str, Any]:
    """The first document (seq 0) of an identity's log, self-signed."""
    body = {
        "protocol": "0.1",
        "type": "IDENTITY",
        "kid": signer.kid,
        "algorithm": "Ed25519",
        "public_key": b64url(signer.public_key),
        "actor_type": actor_type,
        "subject": subject,
        "seq": 0,
        "prev": None,
        "status": "active",
        "replaces": None,
        "replaced_by": None,
        "issued_at": timestamp(issued_at),
    }
    return {"body": body, "signature": b64url(signer.sign(canonical_bytes(body)))}
