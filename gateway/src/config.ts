import { commonSettings, port, setting } from "@countersign/core/config";

/** Settings of a Gateway replica (docs/configuration.md lists them all). */
export const gatewaySettings = {
  ...commonSettings,
  port: setting("COUNTERSIGN_GATEWAY_PORT", port(8081), "a port number 0-65535"),
};
