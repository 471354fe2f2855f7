/**
 * The text rule for one string a request carries outside a JSON body (a query
 * value, a path segment, a value inside a cursor): no U+0000 and no lone
 * surrogate, since PostgreSQL refuses the first and cannot store the second,
 * and canonical JSON would replace it so that different texts digest the same.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` breaks the text rule, or null. */
export function textProblem(s: string): string | null {
  if (s.includes("\0")) return "text contains U+0000";
  if (LONE_SURROGATE.test(s)) return "text contains a lone surrogate";
  return null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Why a raw URL part (a path, or a query string, '+' meaning space) breaks
 * the rule once percent-decoded: a `%` not followed by two hex digits, bytes
 * that are not UTF-8, or U+0000. Null when clean. Separators are ASCII and
 * never continue a UTF-8 sequence, so the whole part is checked at once.
 */
export function urlTextProblem(raw: string): string | null {
  if (!raw.includes("%")) {
    // Common case: plain ASCII (Node hands the request line over as latin1).
    for (let i = 0; i < raw.length; i++)
      if (raw.charCodeAt(i) > 0x7e || raw.charCodeAt(i) < 0x20) return decodedProblem(raw);
    return null;
  }
  return decodedProblem(raw);
}

function decodedProblem(raw: string): string | null {
  const bytes = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 /* % */) {
      const h = parseHexByte(raw, i + 1);
      if (h < 0) return "invalid percent-encoding";
      bytes[n++] = h;
      i += 2;
    } else if (c > 0xff) return "text is not valid UTF-8";
    else bytes[n++] = c;
  }
  let text: string;
  try {
    text = utf8.decode(bytes.subarray(0, n));
  } catch {
    return "text is not valid UTF-8";
  }
  return text.includes("\0") ? "text contains U+0000" : null;
}

function parseHexByte(s: string, at: number): number {
  if (at + 2 > s.length) return -1;
  const v = Number.parseInt(s.slice(at, at + 2), 16);
  return /^[0-9a-fA-F]{2}$/.test(s.slice(at, at + 2)) ? v : -1;
}
