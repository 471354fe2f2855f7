import { isIPv4, isIPv6 } from "node:net";

/**
 * An IP address as its bytes: 4 for IPv4, 16 for IPv6. Range checks work on
 * bytes so that every spelling of an IPv6 address ("::ffff:10.0.0.1",
 * "::ffff:a00:1", zero-padded groups) is judged the same way.
 */
export interface IpBytes {
  family: 4 | 6;
  bytes: Uint8Array;
}

export function parseIp(text: string): IpBytes | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIPv4(bare)) return { family: 4, bytes: Uint8Array.from(bare.split(".").map(Number)) };
  // A zone ("fe80::1%eth0") names an interface: such an address is link-local anyway,
  // and the zone is dropped for judging.
  const noZone = bare.split("%")[0]!;
  if (!isIPv6(noZone)) return undefined;
  return { family: 6, bytes: ipv6Bytes(noZone) };
}

function ipv6Bytes(text: string): Uint8Array {
  // A trailing dotted IPv4 part ("::ffff:1.2.3.4") stands for the last two
  // groups: rewrite it as hex groups so one parser handles every spelling.
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  let hex = text;
  if (last.includes(".")) {
    const [a, b, c, d] = last.split(".").map(Number) as [number, number, number, number];
    hex = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const toGroups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  let groups: number[];
  if (hex.includes("::")) {
    const [head, rest] = hex.split("::") as [string, string];
    const h = toGroups(head);
    const r = toGroups(rest);
    groups = [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
  } else {
    groups = toGroups(hex);
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

/** Whether the first `bits` bits of `bytes` equal those of `prefix`. */
export function inPrefix(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

export function formatIp(ip: IpBytes): string {
  if (ip.family === 4) return Array.from(ip.bytes).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  return groups.join(":");
}
