import { ServiceError } from "@countersign/protocol/errors";
import { decryptMcpCredential } from "@countersign/core/mcp-servers";
import { checkPublicUrl } from "@countersign/core/net";
import type { ApiContext } from "../context.js";
import { discoverTools } from "../mcp/discovery.js";
import { withDiscoverySlot } from "../mcp/discovery-slots.js";
import { mcpOptionsOf, type McpOptions } from "../mcp/options.js";
import type { ServerRow } from "./store.js";

/** How the Cloud API reaches an MCP server: its address rules, its stored credential, discovery. */
export async function requireAllowedUrl(text: string, mcp: McpOptions): Promise<void> {
  const check = await checkPublicUrl(text, { allowLoopback: mcp.allowLoopbackUrls, resolve: mcp.resolve });
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

/** Lists a server's tools upstream, in one of the discovery slots. */
export async function discoverServer(ctx: ApiContext, orgId: string, s: ServerRow) {
  if (s.kind === "decision_only")
    throw new ServiceError(
      "CALLER_EXECUTED",
      "a decision-only integration is executed by its caller: there is nothing to discover",
    );
  const mcp = mcpOptionsOf(ctx);
  const auth = storedAuthorization(s, mcp);
  return withDiscoverySlot(ctx.pool, orgId, () => discoverTools({ url: s.url!, authorization: auth }, mcp));
}
