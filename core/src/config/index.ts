export {
  loadConfig,
  loadConfigOrExit,
  ConfigError,
  CONFIG_FILE_ENV,
  type ConfigProblem,
} from "./load-config.js";
export {
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
} from "./setting.js";
export { commonSettings } from "./common-settings.js";
export { secretBytes, ed25519Seed, key32 } from "./secrets.js";
export { caCertificates } from "./certificates.js";
