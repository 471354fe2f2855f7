import { isIPv4, isIPv6 } from "node:net";
import type { FastifyRequest } from "fastify";

/**
 * The client address: the socket's, or with `hops` trusted reverse proxies in
 * front, the entry that many places from the right of X-Forwarded-For (each
 * proxy appends the address it saw, so entries further left are the client's
 * own claims).
 */
export function clientIp(request: FastifyRequest, hops: number): string {
  const socket = request.socket.remoteAddress ?? "0.0.0.0";
  if (hops <= 0) return socket;
  const header = request.headers["x-forwarded-for"];
  const list = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const chain = [...list, socket];
  const candidate = chain[Math.max(0, chain.length - 1 - hops)]!;
  return isIPv4(candidate) || isIPv6(candidate) ? candidate : socket;
}

function ipv6Groups(ip: string): number[] {
  const [head, tail] = ip.split("::") as [string, string | undefined];
  const parse = (s: string | undefined) => (s ? s.split(":") : []);
  let left = parse(head);
  let right = parse(tail);
  // an embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups
  const expand = (groups: string[]) =>
    groups.flatMap((g) => {
      if (!g.includes(".")) return [g];
      const b = g.split(".").map(Number) as [number, number, number, number];
      return [((b[0] << 8) | b[1]).toString(16), ((b[2] << 8) | b[3]).toString(16)];
    });
  left = expand(left);
  right = expand(right);
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

/**
 * Rate-limit subjects of an address (SPEC 8.1): one IPv4 address, or one IPv6
 * /64; `net48` is the IPv6 /48 of the limits that name it (absent for IPv4).
 * IPv4-mapped IPv6 addresses are their IPv4 address.
 */
export function ipSubjects(ip: string): { ip: string; net48?: string } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return { ip: `v4:${mapped[1]}` };
  if (isIPv4(ip)) return { ip: `v4:${ip}` };
  const g = ipv6Groups(ip).map((n) => n.toString(16));
  return { ip: `v6/64:${g.slice(0, 4).join(":")}`, net48: `v6/48:${g.slice(0, 3).join(":")}` };
}
