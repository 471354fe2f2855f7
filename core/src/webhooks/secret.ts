import { randomBytes } from "node:crypto";

/** A new endpoint signing secret: `whsec_` and 32 random bytes as base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}
