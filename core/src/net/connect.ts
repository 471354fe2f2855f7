import type { LookupAddress, LookupOneOptions } from "node:dns";
import {
  checkPublicUrl,
  type AddressRules,
  type ResolvedAddress,
  type UrlRefusal,
  systemResolve,
} from "./public-url.js";
import { judgeReceiverAddress } from "./address-judgement.js";

/** A connection refused by the address rules at connect time. `reason` is a UrlRefusal. */
export class AddressNotAllowedError extends Error {
  readonly code = "URL_NOT_ALLOWED";
  constructor(
    readonly reason: UrlRefusal,
    readonly address?: string,
  ) {
    super(
      address ? `address ${address} is not allowed (${reason})` : `receiver URL is not allowed (${reason})`,
    );
  }
}

export interface ConnectTarget {
  url: URL;
  /** The checked address to open the socket to: pass it as `host`, never the name. */
  address: string;
  family: 4 | 6;
  port: number;
  /** For TLS SNI and certificate checks, and the Host header; undefined for an IP literal. */
  servername: string | undefined;
}

/**
 * Resolves and judges the receiver's host now, at connection time, and
 * returns one checked address to connect to. The caller connects to that
 * address (host: target.address, servername: target.servername), so nothing
 * resolves the name again between the check and the connection: a name that
 * starts resolving to a private address is refused at the next connection.
 */
export async function connectTarget(text: string, rules: AddressRules): Promise<ConnectTarget> {
  const check = await checkPublicUrl(text, rules);
  if (!check.allowed) throw new AddressNotAllowedError(check.reason, check.address);
  const first = check.addresses[0]!;
  const literal = check.addresses.length === 1 && first.address === check.hostname;
  return {
    url: check.url,
    address: first.address,
    family: first.family,
    port: check.port,
    servername: literal ? undefined : check.hostname,
  };
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls/http/undici connect options: it resolves the name
 * once, refuses the connection unless every address is public, and hands the
 * socket only those checked addresses. Use it where the connection is made
 * by a library (e.g. undici's `new Agent({ connect: { lookup } })`).
 * IP literals never reach a lookup: check those with judgeReceiverAddress or
 * connectTarget before connecting.
 */
export function checkedLookup(rules: AddressRules) {
  const resolve = rules.resolve ?? systemResolve;
  return (
    hostname: string,
    options: LookupOneOptions & { all?: boolean },
    callback: LookupCallback,
  ): void => {
    resolve(hostname).then(
      (addresses: ResolvedAddress[]) => {
        if (addresses.length === 0) return callback(new AddressNotAllowedError("unresolvable"), "");
        for (const a of addresses) {
          const judgement = judgeReceiverAddress(a.address, rules.allowLoopback);
          if (!judgement.allowed)
            return callback(new AddressNotAllowedError(judgement.reason, a.address), "");
        }
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        if (wanted.length === 0) return callback(new AddressNotAllowedError("unresolvable"), "");
        if (options.all)
          return callback(
            null,
            wanted.map((a) => ({ address: a.address, family: a.family })),
          );
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      () => callback(new AddressNotAllowedError("unresolvable"), ""),
    );
  };
}
