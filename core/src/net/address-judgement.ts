import { inPrefix, parseIp, type IpBytes } from "./ip-address.js";

/**
 * Why an address is not public (SPEC 6.4). The names are what
 * `details.reason` of URL_NOT_ALLOWED carries, so they are part of the
 * documented interface (docs/webhooks.md).
 */
export type AddressRefusal =
  | "unspecified_address"
  | "loopback_address"
  | "private_address"
  | "link_local_address"
  | "carrier_grade_nat_address"
  | "multicast_address"
  | "documentation_address"
  | "reserved_address";

export type AddressJudgement = { allowed: true } | { allowed: false; reason: AddressRefusal };

interface Range {
  prefix: Uint8Array;
  bits: number;
  reason: AddressRefusal;
}

function v4(text: string, bits: number, reason: AddressRefusal): Range {
  return { prefix: Uint8Array.from(text.split(".").map(Number)), bits, reason };
}

function v6(text: string, bits: number, reason: AddressRefusal): Range {
  return { prefix: parseIp(text)!.bytes, bits, reason };
}

// The IANA IPv4 special-purpose registry, each entry with the reason a
// receiver there is refused. 169.254.169.254 (the cloud metadata address) is
// in the link-local range.
const ipv4Ranges: Range[] = [
  v4("0.0.0.0", 8, "unspecified_address"),
  v4("10.0.0.0", 8, "private_address"),
  v4("100.64.0.0", 10, "carrier_grade_nat_address"),
  v4("127.0.0.0", 8, "loopback_address"),
  v4("169.254.0.0", 16, "link_local_address"),
  v4("172.16.0.0", 12, "private_address"),
  v4("192.0.0.0", 24, "reserved_address"),
  v4("192.0.2.0", 24, "documentation_address"),
  v4("192.31.196.0", 24, "reserved_address"),
  v4("192.52.193.0", 24, "reserved_address"),
  v4("192.88.99.0", 24, "reserved_address"),
  v4("192.168.0.0", 16, "private_address"),
  v4("192.175.48.0", 24, "reserved_address"),
  v4("198.18.0.0", 15, "reserved_address"),
  v4("198.51.100.0", 24, "documentation_address"),
  v4("203.0.113.0", 24, "documentation_address"),
  v4("224.0.0.0", 4, "multicast_address"),
  v4("240.0.0.0", 4, "reserved_address"), // includes 255.255.255.255
];

// IPv6 ranges refused outright. Forms that embed an IPv4 address are handled
// before these (see embeddedIpv4), and everything outside 2000::/3 (global
// unicast) is refused as reserved after them.
const ipv6Ranges: Range[] = [
  v6("::", 128, "unspecified_address"),
  v6("::1", 128, "loopback_address"),
  v6("64:ff9b:1::", 48, "private_address"), // local-use NAT64 (RFC 8215)
  v6("100::", 64, "reserved_address"), // discard-only
  v6("2001:db8::", 32, "documentation_address"),
  v6("2001::", 23, "reserved_address"), // IETF protocol assignments, Teredo, ORCHID
  v6("3fff::", 20, "documentation_address"),
  v6("5f00::", 16, "reserved_address"), // SRv6 SIDs
  v6("fc00::", 7, "private_address"), // unique local
  v6("fe80::", 10, "link_local_address"),
  v6("fec0::", 10, "private_address"), // site-local (deprecated)
  v6("ff00::", 8, "multicast_address"),
];

const globalUnicast = v6("2000::", 3, "reserved_address");

// IPv6 forms that carry an IPv4 address: the IPv4 address is where the
// packets end up, so it is what gets judged.
const embeddingForms: { prefix: Uint8Array; bits: number; at: number }[] = [
  { prefix: parseIp("::ffff:0:0")!.bytes, bits: 96, at: 12 }, // IPv4-mapped
  { prefix: parseIp("::ffff:0:0:0")!.bytes, bits: 96, at: 12 }, // IPv4-translated (RFC 2765)
  { prefix: parseIp("64:ff9b::")!.bytes, bits: 96, at: 12 }, // NAT64 well-known prefix
  { prefix: parseIp("2002::")!.bytes, bits: 16, at: 2 }, // 6to4
  { prefix: parseIp("::")!.bytes, bits: 96, at: 12 }, // IPv4-compatible (deprecated); :: and ::1 judged first
];

function embeddedIpv4(bytes: Uint8Array): IpBytes | undefined {
  for (const form of embeddingForms) {
    if (inPrefix(bytes, form.prefix, form.bits)) {
      return { family: 4, bytes: bytes.slice(form.at, form.at + 4) };
    }
  }
  return undefined;
}

function firstMatch(bytes: Uint8Array, ranges: Range[]): Range | undefined {
  return ranges.find((r) => inPrefix(bytes, r.prefix, r.bits));
}

/** Whether a receiver at this address counts as public (SPEC 6.4). */
export function judgeAddress(address: string | IpBytes): AddressJudgement {
  const ip = typeof address === "string" ? parseIp(address) : address;
  if (!ip) return { allowed: false, reason: "reserved_address" };
  if (ip.family === 4) {
    const hit = firstMatch(ip.bytes, ipv4Ranges);
    return hit ? { allowed: false, reason: hit.reason } : { allowed: true };
  }
  const exact = firstMatch(ip.bytes, ipv6Ranges.slice(0, 2));
  if (exact) return { allowed: false, reason: exact.reason };
  const inner = embeddedIpv4(ip.bytes);
  if (inner) return judgeAddress(inner);
  const hit = firstMatch(ip.bytes, ipv6Ranges);
  if (hit) return { allowed: false, reason: hit.reason };
  if (!inPrefix(ip.bytes, globalUnicast.prefix, globalUnicast.bits))
    return { allowed: false, reason: "reserved_address" };
  return { allowed: true };
}

/**
 * The judgement with the loopback switch applied: loopback (and only
 * loopback, never private ranges) is allowed when the installation turned on
 * COUNTERSIGN_ALLOW_LOOPBACK_URLS for local runs and tests.
 */
export function judgeReceiverAddress(address: string | IpBytes, allowLoopback: boolean): AddressJudgement {
  const judgement = judgeAddress(address);
  if (!judgement.allowed && judgement.reason === "loopback_address" && allowLoopback)
    return { allowed: true };
  return judgement;
}
