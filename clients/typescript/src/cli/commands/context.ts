import type { CommandLine } from "../command-line.js";
import { credentials, type Credentials } from "../cloud/credentials.js";
import { usageError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";

export interface CommandOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CommandContext {
  line: CommandLine;
  env: NodeJS.ProcessEnv;
  /** Standard input, read whole (for --password-stdin). */
  readStdin(): Promise<string>;
}

export const json = (ctx: CommandContext) => ctx.line.switches.has("json");

/** Success: the Cloud API's answer as JSON with --json, else the human lines. */
export function done(ctx: CommandContext, data: unknown, human: string): CommandOutput {
  return {
    exitCode: EXIT.ok,
    stdout: json(ctx) ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`,
    stderr: "",
  };
}

export function creds(ctx: CommandContext): Credentials {
  return credentials(ctx.env, ctx.line.flags.get("url"));
}

/** --org, else COUNTERSIGN_ORG, else the signed-in session's current organization. */
export function organization(ctx: CommandContext, c: Credentials): string {
  const org =
    ctx.line.flags.get("org") ??
    ctx.env.COUNTERSIGN_ORG ??
    (c.kind === "session" ? c.session.current_organization_id : null);
  if (!org) throw usageError("which organization? give --org ORG_ID or COUNTERSIGN_ORG");
  return org;
}

/** The single ID argument of `GROUP SUB ID`. */
export function idArgument(ctx: CommandContext, what: string): string {
  const id = ctx.line.words[2];
  if (!id || ctx.line.words.length > 3) throw usageError(`give one ${what} id`);
  return encodeURIComponent(id);
}

export function keyFilePath(ctx: CommandContext, flag = "key-file"): string {
  const path = ctx.line.flags.get(flag) ?? (flag === "key-file" ? ctx.env.COUNTERSIGN_KEY_FILE : undefined);
  if (path) return path;
  if (flag !== "key-file") throw usageError(`--${flag} FILE is required`);
  return `${ctx.env.COUNTERSIGN_CONFIG_DIR ?? `${ctx.env.XDG_CONFIG_HOME ?? `${ctx.env.HOME ?? "."}/.config`}/countersign`}/personal-key.json`;
}
