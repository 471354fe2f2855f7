/**
 * The Cloud API as the CLI calls it (SPEC 4.3): the one Cloud API client
 * (`@countersign/client/cloud`), every answer validated by its wire schema,
 * authenticated with a management key as bearer token, or the session cookie
 * with the dashboard Origin and `X-Service-CSRF` on unsafe methods (SPEC 5.5).
 * A CloudApiError becomes a CliError with the exit status of its kind.
 */
import type { z } from "zod";
import { CloudApiError, createCloudClient, type CloudClient, type Method } from "../../cloud/index.js";
import type { Credentials } from "./credentials.js";
import { CliError } from "./errors.js";
import { EXIT } from "./exit-codes.js";

const baseOf = (creds: Credentials) => (creds.kind === "key" ? creds.url : creds.session.url);

function clientFor(creds: Credentials, onAnswer?: (status: number, headers: Headers) => void): CloudClient {
  return createCloudClient({
    baseUrl: baseOf(creds),
    headers: (method): Record<string, string> => {
      if (creds.kind === "key") return { authorization: `Bearer ${creds.key}` };
      const { session } = creds;
      const cookie = `svc_session=${session.session_token}`;
      if (method === "GET") return { cookie };
      return { cookie, origin: session.origin, "x-service-csrf": session.csrf_token };
    },
    ...(onAnswer ? { onAnswer } : {}),
  });
}

/** One request; its answer validated by `answer`, a wire schema of @countersign/protocol. */
export async function cloudRequest<S extends z.ZodType>(
  creds: Credentials,
  method: Method,
  path: string,
  answer: S,
  body?: unknown,
): Promise<z.infer<S>> {
  try {
    return await clientFor(creds).request(method, path, answer, body === undefined ? {} : { body });
  } catch (err) {
    throw cliErrorOf(err, baseOf(creds));
  }
}

/** A file the Cloud API serves (a receipt bundle): its exact bytes and headers. */
export async function cloudDownload(
  creds: Credentials,
  path: string,
): Promise<{ bytes: Uint8Array; headers: Headers }> {
  try {
    return await clientFor(creds).download(path);
  } catch (err) {
    throw cliErrorOf(err, baseOf(creds));
  }
}

/** POST /auth/signin without credentials: the answer and the session cookie it set. */
export async function signinRequest<S extends z.ZodType>(
  url: string,
  answer: S,
  body: { email: string; password: string },
): Promise<{ answer: z.infer<S>; sessionToken: string | undefined }> {
  let sessionToken: string | undefined;
  const client = createCloudClient({
    baseUrl: url,
    onAnswer: (_status, headers) => {
      sessionToken = headers
        .getSetCookie()
        .map((c) => /^svc_session=([^;]*)/.exec(c)?.[1])
        .find(Boolean);
    },
  });
  try {
    return { answer: await client.post("/auth/signin", answer, { body }), sessionToken };
  } catch (err) {
    throw cliErrorOf(err, url);
  }
}

/** The exit status and message of a failed request (docs/clients.md). */
function cliErrorOf(err: unknown, base: string): unknown {
  if (!(err instanceof CloudApiError)) return err;
  if (err.code === "NETWORK_ERROR" || err.code === "ABORTED")
    return new CliError(`cannot reach the Cloud API at ${base}: ${err.message}`, EXIT.unavailable);
  if (err.code === "INVALID_ANSWER")
    return new CliError(
      `the Cloud API's answer is not what this CLI expects (${err.message}); check --url and that the CLI matches the Cloud API's version`,
      EXIT.unavailable,
    );
  // An error answer without the spec's error body (a proxy's page) is named by its status.
  const fromApi = !/^HTTP_\d+$/.test(err.code);
  const what = fromApi ? `${err.code}: ${err.message}` : `HTTP ${err.status}`;
  const body = fromApi
    ? { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } }
    : null;
  if (err.status === 401)
    return new CliError(
      `the Cloud API refused the credentials (${what}); sign in again or check COUNTERSIGN_MANAGEMENT_KEY`,
      EXIT.auth,
      body,
    );
  if (err.status >= 500) return new CliError(`the Cloud API failed (${what})`, EXIT.unavailable, body);
  if (err.status >= 300 && err.status < 400)
    return new CliError(
      `the Cloud API URL answered a redirect (HTTP ${err.status}); check --url`,
      EXIT.unavailable,
    );
  return new CliError(`refused: ${what}`, EXIT.refused, body);
}
