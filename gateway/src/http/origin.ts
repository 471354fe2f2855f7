import type { FastifyReply, FastifyRequest } from "fastify";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import { rpcError } from "./edge.js";

/** Loopback page origins: a page the user's own machine serves, never a rebound public name. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The `Origin` rule of the Streamable HTTP transport (MCP 2025-11-25 and
 * 2026-07-28, "Security warning": servers MUST validate `Origin`, against DNS
 * rebinding). A request without `Origin` is not a browser's and passes (agents
 * send none); one with `Origin` passes only when that origin is a loopback
 * page (`http(s)://localhost|127.0.0.1|[::1]`, any port) or one of
 * COUNTERSIGN_MCP_ALLOWED_ORIGINS (docs/configuration.md). Same-origin is not
 * enough: a rebound name makes the page and the Gateway the same origin.
 */
export function originAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (origin === undefined) return true;
  const url = URL.parse(origin);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin) return false;
  return LOOPBACK_HOSTS.has(url.hostname) || allowed.has(url.origin);
}

/**
 * Parses COUNTERSIGN_MCP_ALLOWED_ORIGINS: origins separated by commas, each
 * `scheme://host[:port]` exactly as browsers send it. Throws naming the first
 * entry that is not such an origin, so a typo stops the start, not every call.
 */
export function parseAllowedOrigins(value: string | undefined): Set<string> {
  const origins = new Set<string>();
  for (const entry of (value ?? "").split(",").map((e) => e.trim())) {
    if (!entry) continue;
    const url = URL.parse(entry);
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== entry)
      throw new Error(
        `COUNTERSIGN_MCP_ALLOWED_ORIGINS: "${entry}" is not an origin (scheme://host[:port], no path)`,
      );
    origins.add(url.origin);
  }
  return origins;
}

/** 403 for a disallowed Origin, before the key check: nothing recorded, no token taken. */
export function refuseOrigin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return rpcError(
    reply,
    403,
    jsonRpcErrors.INVALID_REQUEST,
    `Origin ${JSON.stringify(request.headers.origin)} is not allowed to call this endpoint`,
  );
}
