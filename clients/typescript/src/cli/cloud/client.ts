/**
 * The Cloud API as the CLI calls it (SPEC 4.3): JSON under {url}/api/v1,
 * a management key as bearer token, or the session cookie with the dashboard
 * Origin and `X-Service-CSRF` on unsafe methods (SPEC 5.5). Error bodies
 * (SPEC 7.1) become a CliError with the exit status of their kind.
 */
import type { Credentials } from "./credentials.js";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

export interface CloudAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  bytes: Buffer;
}

export function apiUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/api/v1${path}`;
}

export async function cloudRequest(
  creds: Credentials,
  method: string,
  path: string,
  body?: unknown,
): Promise<CloudAnswer> {
  const base = creds.kind === "key" ? creds.url : creds.session.url;
  const headers: Record<string, string> = { accept: "application/json" };
  if (creds.kind === "key") headers.authorization = `Bearer ${creds.key}`;
  else {
    headers.cookie = `svc_session=${creds.session.session_token}`;
    if (method !== "GET") {
      headers.origin = creds.session.origin;
      headers["x-service-csrf"] = creds.session.csrf_token;
    }
  }
  return send(base, method, path, headers, body);
}

export async function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<CloudAnswer> {
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(apiUrl(base, path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
  } catch (err) {
    throw new CliError(`cannot reach the Cloud API at ${base}: ${(err as Error).message}`, EXIT.unavailable);
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  let parsed: unknown = null;
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch {
      parsed = null;
    }
  }
  if (res.status >= 200 && res.status < 300)
    return { status: res.status, headers: res.headers, body: parsed, bytes };
  const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
  const what = error?.code ? `${error.code}: ${error.message ?? ""}` : `HTTP ${res.status}`;
  if (res.status === 401)
    throw new CliError(
      `the Cloud API refused the credentials (${what}); sign in again or check COUNTERSIGN_MANAGEMENT_KEY`,
      EXIT.auth,
      parsed,
    );
  if (res.status >= 500) throw new CliError(`the Cloud API failed (${what})`, EXIT.unavailable, parsed);
  if (res.status >= 300 && res.status < 400)
    throw new CliError(
      `the Cloud API URL answered a redirect (HTTP ${res.status}); check --url`,
      EXIT.unavailable,
    );
  throw new CliError(`refused: ${what}`, EXIT.refused, parsed);
}
