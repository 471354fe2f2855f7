import { z } from "zod";
import {
  agentExplanationSchema,
  authorizationSchema,
  authorizeRequestSchema,
  callMetaSchema,
  decisionRefusalSchema,
  invalidRequestAnswerSchema,
  jsonRpcErrorAnswerSchema,
  observePolicySchema,
  rateLimitedAnswerSchema,
  refusalContentSchema,
  resultServiceMetaSchema,
  rpcErrorDataSchema,
  unauthorizedAnswerSchema,
  unavailableAnswerSchema,
} from "@countersign/protocol/wire";
import { VERSION } from "../instance.js";

/**
 * The Gateway's OpenAPI 3.1 document (docs/gateway.md "The OpenAPI document"), generated from the
 * Gateway's wire schemas (protocol/src/wire/gateway) with zod's JSON Schema output: nothing in it
 * is written by hand but the prose. Served at GET /openapi.json and committed as
 * docs/openapi/gateway.json (gateway/scripts/openapi.ts writes it; a test fails when stale).
 */

/** Each wire schema under the name the document gives it (components.schemas). */
const components = {
  AuthorizeRequest: authorizeRequestSchema,
  Authorization: authorizationSchema,
  DecisionRefusal: decisionRefusalSchema,
  InvalidRequestAnswer: invalidRequestAnswerSchema,
  UnauthorizedAnswer: unauthorizedAnswerSchema,
  RateLimitedAnswer: rateLimitedAnswerSchema,
  UnavailableAnswer: unavailableAnswerSchema,
  ObservePolicy: observePolicySchema,
  AgentExplanation: agentExplanationSchema,
  ServiceCallMeta: callMetaSchema,
  ServiceResultMeta: resultServiceMetaSchema,
  ServiceRefusalContent: refusalContentSchema,
  JsonRpcErrorAnswer: jsonRpcErrorAnswerSchema,
  ServiceRpcErrorData: rpcErrorDataSchema,
} satisfies Record<string, z.ZodType>;

type ComponentName = keyof typeof components;
type JsonObject = Record<string, unknown>;

/** components.schemas: one JSON Schema per wire schema, the shared ones referenced by `$ref`. */
function componentSchemas(): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: "output",
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each schema lives inside the document: its dialect is the document's (jsonSchemaDialect), and
  // it is found by its place in components, not by an `$id` of its own.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject) => ({ "application/json": { schema } });
const retryAfter = (description: string) => ({
  "Retry-After": { description, schema: { type: "integer", minimum: 0 } },
});

function authorizePath(): JsonObject {
  const invalid = (description: string) => ({ description, content: json(ref("InvalidRequestAnswer")) });
  return {
    post: {
      operationId: "authorize",
      summary: "Ask for a decision before acting (decision-only tools)",
      description:
        "SPEC 4.1. Every answer has `allowed`; only `allowed: true` (status `authorized`) is permission to act, once, exactly as authorized, before `expires_at`. Ask again with the same tool, arguments and `idempotency_key` to read the same decision (or resume one held for a person). Refusals before the decision record nothing.",
      security: [{ gatewayKey: [] }],
      requestBody: { required: true, content: json(ref("AuthorizeRequest")) },
      responses: {
        "200": {
          description:
            "A decision: an authorization, or a refusal (approval_pending, denied, rejected, expired, cancelled, plan_limit). A denial's `code` may be a workflow engine's own code.",
          content: json({ anyOf: [ref("Authorization"), ref("DecisionRefusal")] }),
        },
        "400": invalid(
          "The request cannot be processed as sent (a body that is not JSON or not the schema's, argument limits of SPEC 8.3, UNKNOWN_TOOL, NOT_DECISION_ONLY, IDEMPOTENCY_KEY_REUSED...); nothing recorded. `detail` names the member, never its value.",
        ),
        "401": {
          description: "No valid gateway key, for any reason of SPEC 5.4 (one answer for all).",
          content: json(ref("UnauthorizedAnswer")),
        },
        "405": invalid("A method other than POST; header `Allow: POST`."),
        "413": invalid("A body over 1 MiB."),
        "415": invalid("A body that is not application/json."),
        "429": {
          description: "The key's token bucket is empty; nothing recorded.",
          headers: retryAfter("seconds to wait"),
          content: json(ref("RateLimitedAnswer")),
        },
        "503": {
          description:
            "The Gateway cannot decide now (database unavailable, replica shutting down, organization queue full, a failure inside the Gateway); nothing recorded; retry the same call with the same idempotency key.",
          headers: retryAfter("5"),
          content: json(ref("UnavailableAnswer")),
        },
      },
    },
  };
}

function mcpPath(): JsonObject {
  return {
    post: {
      operationId: "mcp",
      summary: "MCP over Streamable HTTP, stateless (Gateway-enforced tools)",
      description:
        "SPEC 4.2. A JSON-RPC 2.0 message (or a batch, in the 2025-03-26 revision) of the Model Context Protocol; each request is authenticated on its own. As Streamable HTTP requires, the request's Accept header must name both application/json and text/event-stream (else 406). Out of scope of this document: the MCP messages themselves (initialize, tools/list, tools/call and their results are the MCP specification's, checked by the MCP SDKs), the `text/event-stream` answers of a call that asked for progress, and the protocol revisions' headers. What the service adds is described by components: `params._meta` of tools/call (ServiceCallMeta), `_meta.service` of a result (ServiceResultMeta), a refusal's `structuredContent` (ServiceRefusalContent: a tool result with `isError` true, never a JSON-RPC error), and the Gateway's own JSON-RPC errors (JsonRpcErrorAnswer, `error.data` as ServiceRpcErrorData).",
      security: [{ gatewayKey: [] }],
      requestBody: {
        required: true,
        content: json({
          description: "A JSON-RPC 2.0 request or notification of MCP, or an array of them.",
          anyOf: [{ type: "object" }, { type: "array", items: { type: "object" } }],
        }),
      },
      responses: {
        "200": {
          description:
            "The JSON-RPC answer (application/json), or an SSE stream (text/event-stream) for a call that asked for progress.",
          content: {
            "application/json": { schema: { anyOf: [{ type: "object" }, { type: "array" }] } },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        "202": { description: "Notifications and responses only: accepted, no body." },
        "400": {
          description: "Invalid JSON (-32700) or an invalid request (-32600).",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "401": {
          description: "No valid gateway key (-32001); header `WWW-Authenticate: Bearer`.",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "405": {
          description: "A method other than POST (-32000).",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "406": {
          description:
            "The request's Accept header does not accept both application/json and text/event-stream, as Streamable HTTP requires (-32000).",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "413": { description: "A body over 1 MiB (-32600).", content: json(ref("JsonRpcErrorAnswer")) },
        "415": {
          description: "A body that is not application/json (-32600).",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "429": {
          description: "Too many requests from the key (-32000); `error.data.retry_after_seconds`.",
          headers: retryAfter("seconds to wait"),
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "500": {
          description: "Internal error (-32603); the message names a request id.",
          content: json(ref("JsonRpcErrorAnswer")),
        },
        "503": {
          description:
            "DATABASE_UNAVAILABLE or GATEWAY_SHUTTING_DOWN in `error.data.service`; nothing recorded.",
          headers: retryAfter("5"),
          content: json(ref("JsonRpcErrorAnswer")),
        },
      },
    },
  };
}

function documentPath(): JsonObject {
  return {
    get: {
      operationId: "openapi",
      summary: "This document",
      description: "Served without a key: it describes the API and holds nothing of anyone's.",
      security: [],
      responses: { "200": { description: "The OpenAPI document.", content: json({ type: "object" }) } },
    },
  };
}

/** The document's text, served and committed byte for byte. */
export function gatewayOpenApiText(): string {
  return `${JSON.stringify(gatewayOpenApiDocument(), null, 2)}\n`;
}

/** The whole document; `info.version` is the Gateway's. */
export function gatewayOpenApiDocument(version: string = VERSION): JsonObject {
  return {
    openapi: "3.1.1",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Countersign Gateway",
      version,
      description:
        "The Gateway asks a policy before an agent acts: POST /v1/authorize for decision-only tools, /mcp for tools the Gateway runs. Generated from protocol/src/wire/gateway; prose in docs/gateway.md and docs/spec.md (4.1, 4.2, 7.3).",
    },
    servers: [{ url: "/", description: "the Gateway's origin ({gateway_url})" }],
    security: [{ gatewayKey: [] }],
    paths: { "/v1/authorize": authorizePath(), "/mcp": mcpPath(), "/openapi.json": documentPath() },
    components: {
      securitySchemes: {
        gatewayKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "svc_(live|test)_<12>_<43>",
          description:
            "A gateway API key (SPEC 5.1): `Authorization: Bearer <GATEWAY_API_KEY>`. A management key is refused here.",
        },
      },
      schemas: componentSchemas(),
    },
  };
}
