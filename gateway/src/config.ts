import { commonSettings, ed25519Seed, port, setting } from "@countersign/core/config";
import { plans } from "@countersign/core/plans";
import { z } from "zod";
import { parseAllowedOrigins } from "./http/origin.js";

/** Settings of a Gateway replica (docs/configuration.md lists them all). */
export const gatewaySettings = {
  ...commonSettings,
  port: setting("COUNTERSIGN_GATEWAY_PORT", port(8081), "a port number 0-65535"),
  /** Private key seed of the Gateway identity that signs TASK, PROPOSAL, EXECUTION, RESULT and receipts; shared by all replicas and the api. */
  signingKey: setting(
    "COUNTERSIGN_GATEWAY_SIGNING_KEY",
    ed25519Seed,
    "an Ed25519 seed: 32 bytes as base64url",
  ),
  /** The plan of organizations without a subscription; the same setting as the api's (DESIGN "Plans"). */
  defaultPlan: setting(
    "COUNTERSIGN_DEFAULT_PLAN",
    z.enum(plans).default("developer"),
    "one of developer, startup, growth, scale, enterprise",
  ),
  /** Browser origins beyond loopback pages allowed to call /mcp (the transport's Origin rule, http/origin.ts). */
  mcpAllowedOrigins: setting(
    "COUNTERSIGN_MCP_ALLOWED_ORIGINS",
    z
      .string()
      .default("")
      .transform((value, check) => {
        try {
          return parseAllowedOrigins(value);
        } catch (err) {
          check.addIssue({ code: "custom", message: (err as Error).message });
          return z.NEVER;
        }
      }),
    "origins separated by commas, each scheme://host[:port]",
  ),
};
