import { commonSettings, port, setting } from "@countersign/core/config";
import { z } from "zod";

/** Settings of the Cloud API server (docs/configuration.md lists them all). */
export const apiSettings = {
  ...commonSettings,
  port: setting("COUNTERSIGN_API_PORT", port(8080), "a port number 0-65535"),
  /** The plan of organizations without a subscription (DESIGN "Plans in a self-hosted installation"). */
  defaultPlan: setting(
    "COUNTERSIGN_DEFAULT_PLAN",
    z.enum(["developer", "startup", "growth", "scale", "enterprise"]).default("developer"),
    "one of developer, startup, growth, scale, enterprise",
  ),
};
