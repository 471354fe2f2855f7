import { commonSettings, ed25519Seed, port, setting } from "@countersign/core/config";

/** Settings of a Gateway replica (docs/configuration.md lists them all). */
export const gatewaySettings = {
  ...commonSettings,
  port: setting("COUNTERSIGN_GATEWAY_PORT", port(8081), "a port number 0-65535"),
  /** Private key seed of the Gateway identity that signs TASK, PROPOSAL, EXECUTION, RESULT and receipts; shared by all replicas. */
  signingKey: setting("COUNTERSIGN_GATEWAY_SIGNING_KEY", ed25519Seed, "an Ed25519 seed: 32 bytes as base64url"),
};
