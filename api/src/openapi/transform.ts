import { createJsonSchemaTransform } from "fastify-type-provider-zod";
import { z } from "zod";
import { accessOf } from "../access/route-table.js";
import { API_PREFIX } from "../prefix.js";
import { errorComponents, errorResponse, errorStatusesOf } from "./errors.js";
import { accessExtension, securityOf } from "./security.js";

// Typed by name: the inferred type names the library's internal `Schema`, which a declaration file
// (tsc -b, the image build) cannot name (TS4023).
const zodTransform: ReturnType<typeof createJsonSchemaTransform> = createJsonSchemaTransform({
  schemaRegistry: errorComponents,
});

type TransformInput = Parameters<typeof zodTransform>[0];
const json = z.record(z.string(), z.unknown());
/** The route's schema as the zod transform gives it back: JSON Schema, answers by status. */
const transformedShape = z.looseObject({ response: z.record(z.string(), json).default({}) });

/**
 * One route of the server as an OpenAPI operation: its zod schemas as JSON
 * Schema (fastify-type-provider-zod), and what the route table says about it:
 * the credentials it accepts, the error answers it can give, an operation id
 * and a tag. Routes outside /api/v1 (health probes, the dashboard's files) are
 * not part of the Cloud API's document.
 */
export function transform(input: TransformInput) {
  const { url } = input;
  const { route } = input;
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "HEAD");
  const access =
    url.startsWith(API_PREFIX) && methods.length === 1
      ? accessOf(methods[0]!, url.slice(API_PREFIX.length))
      : undefined;
  if (!access) return { schema: { hide: true }, url };

  const response: Record<string, unknown> = { ...json.optional().parse(input.schema.response) };
  const statuses = errorStatusesOf(access);
  for (const status of statuses) response[String(status)] ??= errorResponse(status).zod;
  const out = zodTransform({ ...input, schema: { ...input.schema, response } });
  const { response: responses, ...transformed } = transformedShape.parse(out.schema);
  for (const [status, answer] of Object.entries(responses)) {
    if (/^2/.test(status) && answer.description === undefined) {
      responses[status] = { ...answer, description: successText[status] ?? "Success" };
    }
  }
  for (const status of statuses) {
    const { headers } = errorResponse(status);
    if (headers) responses[String(status)] = { ...responses[String(status)], headers };
  }
  const schema = {
    ...transformed,
    operationId: operationIdOf(access.method, access.path),
    tags: [tagOf(access.path)],
    security: securityOf(access),
    "x-countersign-access": accessExtension(access),
    response: responses,
  };
  return { schema, url: out.url };
}

const successText: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "204": "No Content",
};

/** `POST /orgs/:org_id/agents/:agent_id/observe/end` → `post_orgs_agents_observe_end`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((s) => s && !s.startsWith(":"))
    .map((s) => s.replace(/[^A-Za-z0-9]+/g, "_"));
  return [method.toLowerCase(), ...words].join("_");
}

/** The resource a route belongs to: the first segment after /orgs/:org_id (or the first segment). */
export function tagOf(path: string): string {
  const segments = path.split("/").filter(Boolean);
  if (segments[0] === "orgs" && segments.length > 2) return segments[2]!;
  return segments[0] === "orgs" ? "orgs" : segments[0]!;
}
