import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { parseStrictJson, urlTextProblem, type JsonPath } from "../text/index.js";

/**
 * Where a request broke the text rule or JSON: the body (`json` when it does
 * not parse, `text` when a string or member name breaks the rule), the query
 * string, or the path. Each server renders it in its own error shape.
 */
export class RequestTextError extends Error {
  readonly statusCode = 400;
  constructor(
    readonly where: "body" | "query" | "path",
    readonly kind: "json" | "text",
    message: string,
    /** Inside the body: where the violation is (member names and indices). */
    readonly path: JsonPath = [],
    /** The parsed body of a `text` violation, for a server that answers in the request's own protocol (JSON-RPC ids). */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "RequestTextError";
  }

  /** The path as text, e.g. `arguments.items[3].note` (member names shortened, never a value). */
  get pathText(): string {
    const text = this.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${p.length > 64 ? `${p.slice(0, 64)}…` : p}`))
      .join("");
    return text.startsWith(".") ? text.slice(1) : text;
  }

  /** Where and what, for a one-line detail. */
  get detail(): string {
    return this.pathText ? `${this.pathText}: ${this.message}` : this.message;
  }
}

export function isRequestTextError(err: unknown): err is RequestTextError {
  return err instanceof RequestTextError;
}

/**
 * The one text rule at the edge of every server, before any hook or handler of
 * ours reads the request: JSON bodies only, through the strict parser; the raw
 * path and query string percent-decoded strictly.
 */
async function requestTextPlugin(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => {
    const parsed = parseStrictJson(body as Buffer);
    if (parsed.ok) return done(null, parsed.value);
    if (parsed.problem === "syntax") return done(new RequestTextError("body", "json", parsed.message));
    done(new RequestTextError("body", "text", parsed.message, parsed.path, parsed.value));
  });
  app.addHook("onRequest", async (request) => {
    const url = request.raw.url ?? "/";
    const q = url.indexOf("?");
    const pathProblem = urlTextProblem(q < 0 ? url : url.slice(0, q));
    if (pathProblem) throw new RequestTextError("path", "text", `the path is malformed: ${pathProblem}`);
    if (q >= 0) {
      const query = url.slice(q + 1);
      const queryProblem = urlTextProblem(query);
      if (queryProblem) throw new RequestTextError("query", "text", queryProblem, queryMemberOf(query));
    }
  });
}

/** The name of the first query member breaking the rule, as a path (for the error's issue). */
function queryMemberOf(query: string): JsonPath {
  for (const part of query.split("&")) {
    if (!urlTextProblem(part)) continue;
    const name = part.split("=")[0]!;
    return urlTextProblem(name) ? ["(member name)"] : [decodeURIComponent(name.replace(/\+/g, " "))];
  }
  return [];
}

export const requestText = fp(requestTextPlugin, {
  name: "countersign-request-text",
  dependencies: ["countersign-lifecycle"],
});
