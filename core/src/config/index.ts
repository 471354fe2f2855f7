// Settings and their loading are the protocol's (protocol/src/config), shared with the operator,
// which does not depend on core; the settings only servers of core have are here.
export {
  loadConfig,
  loadConfigOrExit,
  ConfigError,
  CONFIG_FILE_ENV,
  type ConfigProblem,
  setting,
  port,
  seconds,
  flag,
  postgresUrl,
  httpUrl,
  logLevel,
  type Setting,
  type Settings,
  type ConfigOf,
} from "@countersign/protocol/config";
export { commonSettings } from "./common-settings.js";
export { secretBytes, ed25519Seed, key32 } from "./secrets.js";
export { caCertificates } from "./certificates.js";
