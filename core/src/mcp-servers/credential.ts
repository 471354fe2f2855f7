import { AUTHORIZATION_PATTERN, MAX_AUTHORIZATION_LENGTH } from "@countersign/protocol/wire";
import { decryptCredential, encryptCredential } from "../credentials/index.js";

/**
 * An MCP server's authorization header credential (SPEC 2.3), stored
 * encrypted under COUNTERSIGN_CREDENTIAL_KEY with the server's id bound as
 * associated data, so a ciphertext copied onto another server never decrypts.
 * The Cloud API encrypts; the Gateway and discovery decrypt.
 */
export const mcpCredentialContext = (serverId: string) => `mcp_server:${serverId}`;

// What a header value may be is the wire's rule (the Cloud API checks it on the request).
export { AUTHORIZATION_PATTERN, MAX_AUTHORIZATION_LENGTH };

export function encryptMcpCredential(key: Buffer, serverId: string, authorization: string): Buffer {
  return encryptCredential(key, authorization, mcpCredentialContext(serverId));
}

export type CredentialRead =
  { ok: true; authorization: string } | { ok: false; reason: "undecryptable" | "invalid_format" };

/** The stored header, or why it cannot be used (UPSTREAM_CREDENTIAL_INVALID with `details.reason`). */
export function decryptMcpCredential(key: Buffer, serverId: string, stored: Buffer): CredentialRead {
  let authorization: string;
  try {
    authorization = decryptCredential(key, stored, mcpCredentialContext(serverId));
  } catch {
    return { ok: false, reason: "undecryptable" };
  }
  if (authorization.length > MAX_AUTHORIZATION_LENGTH || !AUTHORIZATION_PATTERN.test(authorization))
    return { ok: false, reason: "invalid_format" };
  return { ok: true, authorization };
}
