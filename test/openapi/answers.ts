/**
 * Every answer a test receives from a Cloud API it started, checked against
 * the server's own OpenAPI document: the (method, route, status) must be an
 * answer the document lists, and a JSON body must validate against its
 * schema (ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 *
 * The check is an onSend hook that test/fixtures/cloud-api.ts adds to every
 * server it starts, so every test that talks to a Cloud API through it checks
 * the document for free. An answer that breaks the document is replaced by a
 * 500 whose message says what broke, and is printed, so the test that
 * received it fails where it looks at the answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { z } from "zod";

type Json = Record<string, unknown>;
const DOC_ID = "cloud-api.json";

/** JSON pointer escaping (RFC 6901). */
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction | null>();
  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
  }

  /** Why this answer breaks the document, or undefined when it does not. */
  check(
    method: string,
    route: string,
    status: number,
    contentType: string | undefined,
    body: string,
  ): string | undefined {
    const path = route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const paths = this.doc.paths as Record<string, Record<string, Json>>;
    const operation = paths[path]?.[method.toLowerCase()];
    if (!operation) return `${method} ${path} is not in the document`;
    const responses = operation.responses as Record<string, Json>;
    const key = String(status);
    let answer = responses[key];
    if (!answer) return `${method} ${path} answered ${status}, which the document does not list`;
    let at = pointer("paths", path, method.toLowerCase(), "responses", key);
    if (typeof answer.$ref === "string") {
      at = answer.$ref.slice(2);
      answer = this.resolve(answer.$ref);
    }
    const content = answer.content as Record<string, Json> | undefined;
    if (!content)
      return body.length === 0
        ? undefined
        : `${method} ${path} ${status} has a body the document says it has none`;
    if (!contentType?.startsWith("application/json")) return undefined; // downloads: their media type is the route's
    const validate = this.validator(`${at}/content/${pointer("application/json")}/schema`);
    if (!validate) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `${method} ${path} ${status}: the body is not JSON`;
    }
    if (validate(value)) return undefined;
    return `${method} ${path} ${status}: the body does not match the document: ${this.ajv.errorsText(validate.errors)}`;
  }

  private resolve(ref: string): Json {
    let node: unknown = this.doc;
    for (const part of ref.slice(2).split("/")) {
      node = (node as Json)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return node as Json;
  }

  private validator(at: string): ValidateFunction | null {
    if (!this.compiled.has(at)) {
      this.compiled.set(at, this.ajv.compile({ $ref: `${DOC_ID}#/${at}` }));
    }
    return this.compiled.get(at) ?? null;
  }
}

/** Adds the check to a Cloud API server before it starts; the answers that broke the document are collected in the returned list. */
export function checkAnswersAgainstDocument(app: FastifyInstance): string[] {
  const broken: string[] = [];
  let checker: AnswerChecker | undefined;
  app.addHook("onSend", async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const route = request.routeOptions.url;
    // Routes without a row of the route table are a test's own (buildApiServer's `routes`), not the API's;
    // the access probe's 204 (`accessProbe`, tests only: access allowed, handler not run) is no API answer.
    if (
      !request.routeOptions.config.access ||
      reply.getHeader("x-access") === "allowed" ||
      !route?.startsWith("/api/v1/") ||
      request.method === "HEAD" ||
      request.method === "OPTIONS"
    )
      return payload;
    if (typeof payload !== "string" && payload !== undefined && payload !== null && !Buffer.isBuffer(payload))
      return payload;
    checker ??= new AnswerChecker(z.record(z.string(), z.unknown()).parse(app.swagger()));
    const text = payload === undefined || payload === null ? "" : payload.toString();
    const type = reply.getHeader("content-type");
    const why = checker.check(
      request.method,
      route,
      reply.statusCode,
      typeof type === "string" ? type : undefined,
      text,
    );
    if (!why) return payload;
    broken.push(why);
    console.error(`OpenAPI: ${why}`);
    reply.code(500).header("content-type", "application/json; charset=utf-8");
    return JSON.stringify({ error: { code: "INTERNAL_ERROR", message: `OpenAPI: ${why}` } });
  });
  return broken;
}
