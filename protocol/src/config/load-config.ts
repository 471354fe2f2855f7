import type * as NodeFs from "node:fs";
import YAML from "yaml";
import type { ConfigOf, Settings } from "./setting.js";

/** Names the optional configuration file (YAML or JSON, keys as in the settings table). */
export const CONFIG_FILE_ENV = "COUNTERSIGN_CONFIG_FILE";

/** One bad setting: where it came from and what was expected. The value itself is never repeated (it may be a secret). */
export interface ConfigProblem {
  setting: string;
  source: "environment" | "file";
  problem: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      "invalid configuration:\n" +
        problems.map((p) => `  ${p.setting} (${p.source}): ${p.problem}`).join("\n"),
    );
    this.name = "ConfigError";
  }
}

function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    // Looked up when a file is named, not imported: the protocol package stays free of Node imports.
    const fs = globalThis.process?.getBuiltinModule?.("node:fs") as typeof NodeFs | undefined;
    if (!fs) throw Object.assign(new Error("no file system"), { code: "ENOSYS" });
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError([
      {
        setting: CONFIG_FILE_ENV,
        source: "environment",
        problem: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`,
      },
    ]);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch {
    throw new ConfigError([
      { setting: CONFIG_FILE_ENV, source: "file", problem: `${file} is not valid YAML or JSON` },
    ]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError([
      { setting: CONFIG_FILE_ENV, source: "file", problem: `${file} must hold a mapping of settings` },
    ]);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Read every setting from the environment, falling back to the optional file,
 * then to the schema's default. Collects every problem before failing, so one
 * start names all bad settings at once.
 */
export function loadConfig<T extends Settings>(
  settings: T,
  env: NodeJS.ProcessEnv = process.env,
): ConfigOf<T> {
  const fileName = env[CONFIG_FILE_ENV];
  const file = fileName ? readFile(fileName) : {};
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(file)) {
    if (!(key in settings)) problems.push({ setting: key, source: "file", problem: "unknown setting" });
  }
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings)) {
    const raw = env[s.env];
    const fromEnv = raw !== undefined && raw !== "";
    const value = fromEnv ? raw : file[key];
    const result = s.schema.safeParse(value);
    if (result.success) out[key] = result.data;
    else
      problems.push({
        setting: fromEnv ? s.env : key,
        source: fromEnv ? "environment" : "file",
        problem: value === undefined ? `required: ${s.expects}` : `expected ${s.expects}`,
      });
  }
  if (problems.length) throw new ConfigError(problems);
  return out as ConfigOf<T>;
}

/** For a server's main: print the problems and exit with status 2 (a usage error, not a crash). */
export function loadConfigOrExit<T extends Settings>(
  settings: T,
  env: NodeJS.ProcessEnv = process.env,
): ConfigOf<T> {
  try {
    return loadConfig(settings, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}
