/**
 * Records managed by Kubernetes (docs/access.md, "Records managed by Kubernetes"): a bound operator names the custom
 * resource it reconciles in the Countersign-Managed-By header of its writes; the marker is stored
 * with the record and every answer carrying the record shows it as `managed_by`, so the dashboard
 * can say which resource manages it. Only an operator may name one: a person or key sending the
 * header is refused, so a marker cannot be forged, and a person's own edit leaves it as it is.
 * One plugin over the five resources' routes, so none of their handlers needs to know.
 */
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import {
  MANAGED_BY_HEADER,
  parseManagedBy,
  type ManagedBy,
  type ManagedKind,
} from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { API_PREFIX } from "../prefix.js";
import { managedTables, markManaged, markersOf } from "./managed-by-store.js";

type Segment = keyof typeof managedTables;
/** Per path segment: the kind that manages it, the record's key in answers, its id parameter. */
const resources: Record<Segment, { kind: ManagedKind; key: string; param: string }> = {
  agents: { kind: "Agent", key: "agent", param: "agent_id" },
  policies: { kind: "Policy", key: "policy", param: "policy_id" },
  tools: { kind: "Tool", key: "tool", param: "tool_id" },
  "mcp-servers": { kind: "MCPServer", key: "mcp_server", param: "server_id" },
  webhooks: { kind: "WebhookEndpoint", key: "webhook", param: "webhook_id" },
};
const ROUTE = new RegExp(
  `^${API_PREFIX}/orgs/:org_id/(agents|policies|tools|mcp-servers|webhooks)(?:/:(\\w+))?(/.*)?$`,
);

declare module "fastify" {
  interface FastifyRequest {
    /** The resource a bound operator named in Countersign-Managed-By, for a write. */
    managedBy: ManagedBy | null;
  }
}

function resourceOf(request: FastifyRequest) {
  const m = ROUTE.exec(request.routeOptions.url ?? "");
  if (!m) return undefined;
  const segment = m[1] as Segment;
  const r = resources[segment];
  // /agents/:agent_id/... is about that agent; /policies/validate and the like are about none.
  const id = m[2] === r.param ? (request.params as Record<string, string>)[r.param] : undefined;
  return {
    ...r,
    table: managedTables[segment],
    id,
    collection: m[2] === undefined && m[3] === undefined,
    // The record itself (/agents, /agents/:agent_id), not an answer about it (/policies/:policy_id/evidence).
    own: m[3] === undefined,
  };
}

const isWrite = (method: string) => method !== "GET" && method !== "HEAD";
type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json & { id: string } =>
  typeof v === "object" && v !== null && typeof (v as Json).id === "string";

async function managedByPlugin(app: FastifyInstance, ctx: ApiContext) {
  app.decorateRequest("managedBy", null);

  app.addHook("preHandler", async (request) => {
    const header = request.headers[MANAGED_BY_HEADER];
    if (header === undefined) return;
    if (request.principal?.kind !== "operator")
      throw new ServiceError(
        "FORBIDDEN",
        `only a bound operator names the Kubernetes resource that manages a record (${MANAGED_BY_HEADER})`,
      );
    const resource = resourceOf(request);
    const marker = typeof header === "string" ? parseManagedBy(header) : undefined;
    const invalid = (message: string) =>
      new ServiceError("VALIDATION_FAILED", "the request is invalid", {
        issues: [{ path: MANAGED_BY_HEADER, code: "invalid_header", message }],
      });
    if (!marker) throw invalid("expected <kind>/<namespace>/<name> of a Kubernetes resource");
    if (!resource || !isWrite(request.method)) throw invalid("only writes of a managed record name one");
    if (marker.kind !== resource.kind)
      throw invalid(`a ${resource.kind} manages this record, not a ${marker.kind}`);
    request.managedBy = marker;
  });

  app.addHook("preSerialization", async (request, reply, payload: unknown) => {
    if (reply.statusCode >= 300 || typeof payload !== "object" || payload === null) return payload;
    const resource = resourceOf(request);
    const orgId = request.organization?.id;
    if (!resource || !orgId) return payload;
    const body = payload as Json;
    const record = isRecord(body[resource.key]) ? (body[resource.key] as Json & { id: string }) : undefined;
    const id = resource.id ?? record?.id;
    if (request.managedBy && id) await markManaged(ctx.pool, resource.table, orgId, id, request.managedBy);
    // Answers of a record's sub-routes stay as their routes made them: the evidence export's
    // digest covers its body, so nothing may be added to it after the handler.
    if (!resource.own) return payload;

    const shown: (Json & { id: string })[] = [];
    if (record) shown.push(record);
    if (resource.collection && Array.isArray(body.items)) shown.push(...body.items.filter(isRecord));
    if (shown.length === 0) return payload;
    const markers = await markersOf(
      ctx.pool,
      resource.table,
      orgId,
      shown.map((r) => r.id),
    );
    for (const r of shown) r.managed_by = markers.get(r.id) ?? null;
    return payload;
  });
}

export const kubernetesManagedBy = fp(managedByPlugin, { name: "kubernetes-managed-by" });
