/**
 * How the CLI proves who it is to the Cloud API: a management key from the
 * environment (COUNTERSIGN_MANAGEMENT_KEY, never from a flag, so it does not
 * land in shell history), or the session `countersign signin` stored in the
 * configuration folder (mode 0600; the session token is a secret and is never
 * printed).
 */
import { mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

export interface StoredSession {
  url: string;
  /** Origin sent with unsafe requests: the dashboard's (SPEC 5.5). */
  origin: string;
  session_token: string;
  csrf_token: string;
  user_id: string;
  current_organization_id: string | null;
}

export type Credentials =
  { kind: "key"; url: string; key: string } | { kind: "session"; session: StoredSession };

export function configDir(env: NodeJS.ProcessEnv): string {
  return env.COUNTERSIGN_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "countersign");
}

const sessionFile = (env: NodeJS.ProcessEnv) => join(configDir(env), "session.json");

export function saveSession(env: NodeJS.ProcessEnv, session: StoredSession): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = sessionFile(env);
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  return file;
}

export function forgetSession(env: NodeJS.ProcessEnv): void {
  rmSync(sessionFile(env), { force: true });
}

export function readSession(env: NodeJS.ProcessEnv): StoredSession | null {
  try {
    return JSON.parse(readFileSync(sessionFile(env), "utf8")) as StoredSession;
  } catch {
    return null;
  }
}

/** The management key wins when set; then the stored session; else the user must sign in. */
export function credentials(env: NodeJS.ProcessEnv, urlFlag: string | undefined): Credentials {
  const key = env.COUNTERSIGN_MANAGEMENT_KEY;
  if (key) {
    const url = urlFlag ?? env.COUNTERSIGN_URL;
    if (!url)
      throw new CliError(
        "COUNTERSIGN_MANAGEMENT_KEY is set: give the Cloud API URL with --url or COUNTERSIGN_URL",
        EXIT.usage,
      );
    return { kind: "key", url, key: key.trim() };
  }
  const session = readSession(env);
  if (!session)
    throw new CliError(
      "not signed in: run `countersign signin` or set COUNTERSIGN_MANAGEMENT_KEY",
      EXIT.auth,
    );
  return { kind: "session", session };
}
