import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { MAX_URL_LENGTH } from "@countersign/protocol/wire";
import { judgeReceiverAddress, type AddressRefusal } from "./address-judgement.js";

// The wire's limit, checked here too for URLs that did not come through a request body.
export { MAX_URL_LENGTH };

/** Why a URL is refused: a URL rule, an unresolvable host, or the first refused address. */
export type UrlRefusal =
  | "invalid_url"
  | "not_https"
  | "too_long"
  | "has_userinfo"
  | "has_fragment"
  | "unresolvable"
  | AddressRefusal;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injectable so tests can make a name change its answer. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressRules {
  /** COUNTERSIGN_ALLOW_LOOPBACK_URLS: loopback receivers for local runs and tests. */
  allowLoopback: boolean;
  resolve?: Resolve;
}

export type PublicUrlCheck =
  | {
      allowed: true;
      url: URL;
      /** The host without IPv6 brackets: what TLS names and the Host header use. */
      hostname: string;
      port: number;
      /** Every address the host resolved to, each judged public. Connect only to one of these. */
      addresses: ResolvedAddress[];
    }
  | {
      allowed: false;
      reason: UrlRefusal;
      /** the refused address, when an address was refused */ address?: string;
    };

export const systemResolve: Resolve = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The rules of the URL text alone, without resolving its host. */
export function checkUrlText(
  text: string,
): { allowed: true; url: URL } | { allowed: false; reason: UrlRefusal } {
  if (text.length > MAX_URL_LENGTH) return { allowed: false, reason: "too_long" };
  if (!URL.canParse(text)) return { allowed: false, reason: "invalid_url" };
  const url = new URL(text);
  if (url.protocol !== "https:") return { allowed: false, reason: "not_https" };
  // An empty "#" or "@" leaves no trace in URL's fields, so the text decides.
  if (text.includes("#")) return { allowed: false, reason: "has_fragment" };
  const authority = text.slice("https://".length).split(/[/?]/, 1)[0]!;
  if (authority.includes("@") || url.username !== "" || url.password !== "") {
    return { allowed: false, reason: "has_userinfo" };
  }
  if (url.hostname === "") return { allowed: false, reason: "invalid_url" };
  return { allowed: true, url };
}

/**
 * SPEC 6.4: https only, at most 2048 characters, no user info, no fragment,
 * and every address the host resolves to must be public. Run on create, on
 * change and again at every connection (see connect.ts).
 */
export async function checkPublicUrl(text: string, rules: AddressRules): Promise<PublicUrlCheck> {
  const textCheck = checkUrlText(text);
  if (!textCheck.allowed) return textCheck;
  const url = textCheck.url;
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === "" ? 443 : Number(url.port);

  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (rules.resolve ?? systemResolve)(hostname);
    } catch {
      return { allowed: false, reason: "unresolvable" };
    }
    if (addresses.length === 0) return { allowed: false, reason: "unresolvable" };
  }

  // Every address must be public, not just one: otherwise a name with one
  // public and one private address would reach the private one some of the time.
  for (const a of addresses) {
    const judgement = judgeReceiverAddress(a.address, rules.allowLoopback);
    if (!judgement.allowed) return { allowed: false, reason: judgement.reason, address: a.address };
  }
  return { allowed: true, url, hostname, port, addresses };
}
