/**
 * The one rule for an upstream MCP server's URL, applied where the Cloud API stores a URL (create,
 * change), where it discovers tools and where the Gateway calls them, so a URL the Cloud API accepts
 * is one the Gateway reaches and the other way round.
 *
 * In production (COUNTERSIGN_ALLOW_LOOPBACK_URLS off) it is SPEC 6.4's: https only, every address
 * public. With the loopback switch on (`make run`, tests) a server on this machine may also be plain
 * http at a loopback host (`http://127.0.0.1:<port>/mcp`, `http://localhost:…`, `http://[::1]:…`): it
 * is reached without TLS only over the loopback interface, never over a network. Private ranges
 * stay refused either way.
 */
import { AddressNotAllowedError, connectTarget, type ConnectTarget } from "./connect.js";
import { checkPublicUrl, checkUrlText, type AddressRules, type UrlRefusal } from "./public-url.js";

/** The loopback hosts plain http may name, and the address each is reached at (no name is resolved). */
const LOOPBACK_HOSTS: Record<string, { address: string; family: 4 | 6 }> = {
  "127.0.0.1": { address: "127.0.0.1", family: 4 },
  localhost: { address: "127.0.0.1", family: 4 },
  "[::1]": { address: "::1", family: 6 },
};

/**
 * A plain http URL at a loopback host, when the loopback switch allows it: where to connect, or why
 * it is refused (the other text rules: length, user info, fragment); null for anything else.
 */
function loopbackHttp(text: string, rules: AddressRules): ConnectTarget | { refused: UrlRefusal } | null {
  if (!rules.allowLoopback || !URL.canParse(text)) return null;
  const url = new URL(text);
  const loopback = LOOPBACK_HOSTS[url.hostname];
  if (url.protocol !== "http:" || !loopback) return null;
  const asHttps = checkUrlText(`https:${text.slice("http:".length)}`);
  if (!asHttps.allowed) return { refused: asHttps.reason };
  return {
    url,
    address: loopback.address,
    family: loopback.family,
    port: Number(url.port || 80),
    servername: undefined,
  };
}

/** Whether an MCP server URL may be stored and used; `reason` is URL_NOT_ALLOWED's `details.reason`. */
export async function checkUpstreamUrl(
  text: string,
  rules: AddressRules,
): Promise<{ allowed: true } | { allowed: false; reason: UrlRefusal; address?: string }> {
  const loopback = loopbackHttp(text, rules);
  if (loopback)
    return "refused" in loopback ? { allowed: false, reason: loopback.refused } : { allowed: true };
  const check = await checkPublicUrl(text, rules);
  return check.allowed ? { allowed: true } : check;
}

/** Where to connect for an upstream URL, judged now, at connection time (AddressNotAllowedError when refused). */
export async function upstreamTarget(text: string, rules: AddressRules): Promise<ConnectTarget> {
  const loopback = loopbackHttp(text, rules);
  if (loopback && "refused" in loopback) throw new AddressNotAllowedError(loopback.refused);
  if (loopback) return loopback;
  if (URL.canParse(text) && new URL(text).protocol === "http:") throw new AddressNotAllowedError("not_https");
  return connectTarget(text, rules);
}
