import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface LocalSecrets {
  keyHashSecret: Buffer;
  gatewaySigningKey: Buffer;
  credentialKey: Buffer;
}

/**
 * `make run` needs the installation secrets a cluster gets from a Secret:
 * generated once into `<dataDir>/secrets.json` (mode 600) and reused, so keys
 * and signatures made in one run stay valid in the next.
 */
export function loadOrCreateSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, "secrets.json");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const fresh = {
      keyHashSecret: randomBytes(32).toString("base64url"),
      gatewaySigningKey: randomBytes(32).toString("base64url"),
      credentialKey: randomBytes(32).toString("base64url"),
    };
    writeFileSync(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600 });
  }
  const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  // Data folders from before webhooks have no credential key yet: add one, keep the rest.
  if (!stored.credentialKey) {
    stored.credentialKey = randomBytes(32).toString("base64url");
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    keyHashSecret: Buffer.from(stored.keyHashSecret ?? "", "base64url"),
    gatewaySigningKey: Buffer.from(stored.gatewaySigningKey ?? "", "base64url"),
    credentialKey: Buffer.from(stored.credentialKey, "base64url"),
  };
}
