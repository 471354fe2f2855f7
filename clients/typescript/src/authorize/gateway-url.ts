import { ServiceHttpError } from "./errors.js";

/**
 * The Gateway's base URL, checked before sending: https, or plain http to a
 * loopback address only (a key must not cross a network in clear), and no
 * user info, query or fragment that would change where the key goes.
 */
export function checkGatewayUrl(gatewayUrl: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(gatewayUrl));
  } catch {
    throw new ServiceHttpError("gatewayUrl is not a URL; nothing was sent");
  }
  if (typeof gatewayUrl !== "string")
    throw new ServiceHttpError("gatewayUrl must be a string; nothing was sent");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw new ServiceHttpError(
      "gatewayUrl must use https (plain http only to a loopback address); nothing was sent",
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ServiceHttpError(
      "gatewayUrl must not carry user info, a query or a fragment; nothing was sent",
    );
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** `{gatewayUrl}/{path}`, keeping a base path (a Gateway behind a path prefix). */
export function endpoint(base: URL, path: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
  return url;
}
