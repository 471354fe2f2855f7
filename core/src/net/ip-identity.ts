import { BlockList, isIP } from "node:net";
import type { PeerCertificate } from "node:tls";

/**
 * The certificate check for a receiver addressed by an IP literal: the address must be one of
 * the certificate's IP subject alternative names (compared as addresses, so `::1` matches
 * `0:0:0:0:0:0:0:1`). Node 22's own `tls.checkServerIdentity` passes an IPv6 literal through
 * `domainToASCII`, which empties it, and then refuses every certificate ("Cert does not contain
 * a DNS name"), so an https receiver at `[::1]` could never be reached.
 */
export function checkIpIdentity(address: string, cert: PeerCertificate): Error | undefined {
  const family = isIP(address);
  if (family === 0) return new Error(`${address} is not an IP address`);
  const listed = new BlockList();
  for (const name of (cert.subjectaltname ?? "").split(", ")) {
    if (!name.startsWith("IP Address:")) continue;
    const ip = name.slice("IP Address:".length);
    const ipFamily = isIP(ip);
    if (ipFamily !== 0) listed.addAddress(ip, ipFamily === 6 ? "ipv6" : "ipv4");
  }
  if (listed.check(address, family === 6 ? "ipv6" : "ipv4")) return undefined;
  return Object.assign(new Error(`IP: ${address} is not in the certificate's IP addresses`), {
    code: "ERR_TLS_CERT_ALTNAME_INVALID",
  });
}
