/**
 * The settings of a server or the operator (docs/configuration.md): each one an environment
 * variable, or a key of the optional configuration file, with the zod schema its value must
 * satisfy, loaded all at once so one start names every bad setting. Node.js only at run time
 * (the file is read with node:fs, looked up when loading, so importing this costs a browser
 * bundle nothing).
 */
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
