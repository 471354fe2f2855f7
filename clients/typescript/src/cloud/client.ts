import { z } from "zod";
import { noContentSchema } from "@countersign/protocol/wire";
import { CloudApiError, errorOf } from "./errors.js";

export interface CloudClientOptions {
  /** The Cloud API's origin ("https://cloud.example"), or "" for the page's own origin in a browser. */
  baseUrl: string;
  fetch?: typeof fetch;
  /**
   * Authentication per request: a bearer key, or a session's X-Service-CSRF. May throw to refuse it,
   * and may be asynchronous (the operator reads its ServiceAccount token for each request).
   */
  headers?: (method: string) => Record<string, string> | Promise<Record<string, string>>;
  credentials?: RequestInit["credentials"];
  /** Told the status and headers of every answer received (a browser ends its session on 401). */
  onAnswer?: (status: number, headers: Headers) => void;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CloudClient {
  /** `path` under /api/v1; the answer is `answer.parse`d (a 204 is `undefined`: pass `noContent`). */
  request<S extends z.ZodType>(
    method: Method,
    path: string,
    answer: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>>;
  get<S extends z.ZodType>(path: string, answer: S, options?: RequestOptions): Promise<z.infer<S>>;
  post<S extends z.ZodType>(path: string, answer: S, options?: RequestOptions): Promise<z.infer<S>>;
  put<S extends z.ZodType>(path: string, answer: S, options?: RequestOptions): Promise<z.infer<S>>;
  patch<S extends z.ZodType>(path: string, answer: S, options?: RequestOptions): Promise<z.infer<S>>;
  delete<S extends z.ZodType>(path: string, answer: S, options?: RequestOptions): Promise<z.infer<S>>;
  /** A file's exact bytes (a receipt bundle), with the same errors. */
  download(
    path: string,
    options?: Pick<RequestOptions, "headers" | "signal">,
  ): Promise<{ bytes: Uint8Array; headers: Headers }>;
}

/** The answer of a 204: nothing (the wire's one schema of it). */
export const noContent = noContentSchema;

export const API_PREFIX = "/api/v1";

export function createCloudClient(options: CloudClientOptions): CloudClient {
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, "") + API_PREFIX;

  function urlOf(path: string, query?: RequestOptions["query"]): string {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) search.set(k, String(v));
    const qs = search.toString();
    return `${base}${path}${qs ? (path.includes("?") ? "&" : "?") + qs : ""}`;
  }

  async function send(method: string, path: string, opts: RequestOptions, accept: string): Promise<Response> {
    // Asked before sending: a refusal thrown here (e.g. the browser's account changed) is the caller's.
    const headers: Record<string, string> = {
      accept,
      ...(await options.headers?.(method)),
      ...opts.headers,
    };
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await doFetch(urlOf(path, opts.query), {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        credentials: options.credentials,
        signal: opts.signal,
        // A redirect is an error answer, never followed: it would carry the credentials elsewhere.
        redirect: "manual",
      });
    } catch (err) {
      // A wrapping fetch's own refusal (the operator's, while its health probe sees an outage).
      if (err instanceof CloudApiError) throw err;
      if (opts.signal?.aborted || (err instanceof Error && err.name === "AbortError"))
        throw new CloudApiError(
          0,
          "ABORTED",
          "the request was aborted",
          undefined,
          undefined,
          undefined,
          err,
        );
      throw new CloudApiError(
        0,
        "NETWORK_ERROR",
        `the service could not be reached${reasonOf(err)}`,
        undefined,
        undefined,
        undefined,
        err,
      );
    }
    options.onAnswer?.(res.status, res.headers);
    if (!res.ok) throw errorOf(res.status, res.headers, await res.text().catch(() => ""));
    return res;
  }

  async function request<S extends z.ZodType>(
    method: Method,
    path: string,
    answer: S,
    opts: RequestOptions = {},
  ): Promise<z.infer<S>> {
    const res = await send(method, path, opts, "application/json");
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new CloudApiError(res.status, "NETWORK_ERROR", "the answer was cut off");
    }
    let json: unknown;
    try {
      json = res.status === 204 || text === "" ? undefined : JSON.parse(text);
    } catch {
      throw new CloudApiError(res.status, "INVALID_ANSWER", "the answer is not JSON");
    }
    const parsed = answer.safeParse(json);
    if (!parsed.success) {
      // Where the answer differs, never its values: an answer may hold what must not be logged.
      const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), code: i.code }));
      throw new CloudApiError(
        res.status,
        "INVALID_ANSWER",
        `the answer does not match its schema at ${issues.map((i) => i.path || "(root)").join(", ")}`,
        { issues },
        res.headers.get("x-request-id") ?? undefined,
      );
    }
    return parsed.data;
  }

  return {
    request,
    get: (path, answer, opts) => request("GET", path, answer, opts),
    post: (path, answer, opts) => request("POST", path, answer, opts),
    put: (path, answer, opts) => request("PUT", path, answer, opts),
    patch: (path, answer, opts) => request("PATCH", path, answer, opts),
    delete: (path, answer, opts) => request("DELETE", path, answer, opts),
    async download(path, opts = {}) {
      const res = await send("GET", path, opts, "*/*");
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await res.arrayBuffer());
      } catch {
        throw new CloudApiError(res.status, "NETWORK_ERROR", "the answer was cut off");
      }
      return { bytes, headers: res.headers };
    },
  };
}

/** The low-level reason a fetch failed (ECONNREFUSED, ENOTFOUND, TimeoutError), never the URL. */
function reasonOf(err: unknown): string {
  const e = err as { cause?: { code?: unknown }; name?: unknown } | undefined;
  const reason = e?.cause?.code ?? (e?.name === "TypeError" ? undefined : e?.name);
  return typeof reason === "string" ? ` (${reason})` : "";
}
