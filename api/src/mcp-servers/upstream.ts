import { ServiceError } from "@countersign/protocol/errors";
import { decryptMcpCredential } from "@countersign/core/mcp-servers";
import { checkUpstreamUrl } from "@countersign/core/net";
import type { ApiContext } from "../context.js";
import { discoverTools, readDeclaration } from "../mcp/discovery.js";
import { withDiscoverySlot } from "../mcp/discovery-slots.js";
import { mcpOptionsOf, type McpOptions } from "../mcp/options.js";
import { checkDeclaredIdentity } from "../mcp/service-aware.js";
import type { ServerRow } from "./store.js";

/** How the Cloud API reaches an MCP server: its address rules, its stored credential, discovery. */
export async function requireAllowedUrl(text: string, mcp: McpOptions): Promise<void> {
  // The Gateway's own rule (core/src/net/upstream-url.ts): what is stored here is what it can call.
  const check = await checkUpstreamUrl(text, { allowLoopback: mcp.allowLoopbackUrls, resolve: mcp.resolve });
  if (!check.allowed) {
    // The refused address itself is not told: it would show callers what internal names resolve to.
    throw new ServiceError(
      "URL_NOT_ALLOWED",
      `the MCP server URL is not allowed: ${check.reason.replace(/_/g, " ")}`,
      { reason: check.reason },
    );
  }
}

export function credentialKey(mcp: McpOptions): Buffer {
  if (!mcp.credentialKey)
    throw new ServiceError(
      "SERVICE_UNAVAILABLE",
      "credential storage is not configured (COUNTERSIGN_CREDENTIAL_KEY)",
    );
  return mcp.credentialKey;
}

/** The stored Authorization header of a server, for discovery (the Gateway decrypts the same way). */
export function storedAuthorization(s: ServerRow, mcp: McpOptions): string | null {
  if (!s.credential_encrypted) return null;
  const read = decryptMcpCredential(credentialKey(mcp), s.id, s.credential_encrypted);
  if (!read.ok)
    throw new ServiceError(
      "UPSTREAM_CREDENTIAL_INVALID",
      "the stored authorization header cannot be used; set it again",
      { reason: read.reason },
    );
  return read.authorization;
}

/**
 * Lists a server's tools upstream, in one of the discovery slots, refusing
 * a server whose declared identity is not the one registered for it.
 */
export async function discoverServer(ctx: ApiContext, orgId: string, s: ServerRow) {
  if (s.kind === "decision_only")
    throw new ServiceError(
      "CALLER_EXECUTED",
      "a decision-only integration is executed by its caller: there is nothing to discover",
    );
  const mcp = mcpOptionsOf(ctx);
  const auth = storedAuthorization(s, mcp);
  const found = await withDiscoverySlot(ctx.pool, orgId, () =>
    discoverTools({ url: s.url!, authorization: auth }, mcp),
  );
  await checkDeclaredIdentity(ctx.pool, found.declaration, s.server_kid);
  return found;
}

/**
 * What the MCP server declares at the URL and with the credential a change
 * leaves, when the change leaves it with an identity (one registered now, or
 * a new address for one registered before); null when there is nothing to check.
 */
export async function declarationAfterPatch(
  ctx: ApiContext,
  orgId: string,
  s: ServerRow,
  b: { url?: string; authorization?: string | null; server_identity?: unknown },
): Promise<{ seen: ServerRow; declared: unknown } | null> {
  if (s.kind !== "mcp" || b.server_identity === null) return null;
  const addressChanged = b.url !== undefined || b.authorization !== undefined;
  if (b.server_identity === undefined && !(addressChanged && s.server_kid !== null)) return null;
  const mcp = mcpOptionsOf(ctx);
  const authorization = b.authorization === undefined ? storedAuthorization(s, mcp) : b.authorization;
  const declared = await withDiscoverySlot(ctx.pool, orgId, () =>
    readDeclaration({ url: b.url ?? s.url!, authorization }, mcp),
  );
  return { seen: s, declared };
}
