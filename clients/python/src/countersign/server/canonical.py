"""RFC 8785 canonical JSON and ``sha256:`` digests, as the evidence protocol hashes and signs
(docs/evidence.md section 1): members sorted by UTF-16 code units, ECMAScript number text."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def _number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("NaN and infinities have no canonical JSON")
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    # Shortest round-trip digits, laid out as ECMAScript's Number::toString does.
    sign = "-" if value < 0 else ""
    digits = repr(abs(value)).lower()
    if "e" in digits:
        base, _, e = digits.partition("e")
        point = int(e)
    else:
        base, point = digits, 0
    whole, _, frac = base.partition(".")
    ds = (whole + frac).lstrip("0")
    n = len(whole.lstrip("0")) + point if whole.strip("0") else point - (len(frac) - len(frac.lstrip("0")))
    ds = ds.rstrip("0") or "0"
    k = len(ds)
    if k <= n <= 21:
        return sign + ds + "0" * (n - k)
    if 0 < n <= 21:
        return sign + ds[:n] + "." + ds[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + ds
    e = n - 1
    return sign + ds[0] + ("." + ds[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def _string(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError("a lone surrogate has no canonical JSON") from err
    return json.dumps(value, ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a JSON value (dict, list, str, int, float, bool, None)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_string(k) + ":" + canonical_json(value[k]) for k in keys) + "}"
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def digest_of(value: Any) -> str:
    """``sha256:`` + hex SHA-256 of the canonical JSON of a value."""
    return "sha256:" + hashlib.sha256(canonical_bytes(value)).hexdigest()
