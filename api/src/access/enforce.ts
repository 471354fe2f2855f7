import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ServiceError } from "@countersign/protocol/errors";
import { isPlan, type Plan } from "@countersign/core/plans";
import { API_PREFIX } from "../prefix.js";
import type { ApiContext } from "../context.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { clientIp, ipSubjects } from "../rate-limits/client-ip.js";
import { checkCredential, checkOrganization } from "./decide.js";
import { credentialSubject, resolvePrincipal, type Principal } from "./principal.js";
import { accessOf, routeTable } from "./route-table.js";
import { organizationAccessRow } from "./store.js";
import type { Role, RouteAccess } from "./types.js";

/** The organization in the path, as the access check found it. */
export interface OrganizationAccess {
  id: string;
  name: string;
  plan: Plan;
  /** The caller's role; null for a management key (keys have scopes, not roles). */
  role: Role | null;
  /** A bound operator the owner allowed the "Admins, signed in" changes (docs/access.md). */
  operatorAdminChanges: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
    organization: OrganizationAccess | null;
    /** The client address after trusted proxies (rate limits, audit). */
    clientAddress: string;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The org id in the path: the parameter right after /orgs/ in the route's own pattern. */
function orgIdOf(request: FastifyRequest): string | undefined {
  const m = /^\/orgs\/:([A-Za-z0-9_]+)/.exec(request.routeOptions.config.access?.path ?? "");
  if (!m) return undefined;
  const shape = request.routeOptions.url?.slice(API_PREFIX.length) ?? "";
  const name = /^\/orgs\/:([A-Za-z0-9_]+)/.exec(shape)?.[1];
  return name ? (request.params as Record<string, string>)[name] : undefined;
}

function loadOrganization(ctx: ApiContext, id: string, p: Principal) {
  return organizationAccessRow(
    ctx.pool,
    id,
    p.kind === "session" ? p.userId : null,
    p.kind === "operator" ? p.username : null,
  );
}

/**
 * Authorization as data, enforced once: every route registered under /api/v1
 * takes its row of the route table (a route without one fails at startup);
 * an onRequest hook resolves the caller, applies the per-IP and
 * per-credential rate limits and the row's rules before the body is even read.
 */
async function accessPlugin(app: FastifyInstance, ctx: ApiContext) {
  const table = ctx.accessTable ?? routeTable;
  // Set on every request by the hook below before any handler reads them.
  const decorate = app.decorateRequest.bind(app) as (name: string, value: unknown) => void;
  decorate("principal", null);
  decorate("organization", null);
  decorate("clientAddress", "");

  app.addHook("onRoute", (route) => {
    if (!route.url?.startsWith(API_PREFIX)) return;
    const path = route.url.slice(API_PREFIX.length);
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (m) => m !== "HEAD" && m !== "OPTIONS",
    );
    if (methods.length === 0) {
      // fastify's automatic HEAD twin of a GET route: the GET's rules apply.
      route.config = { ...route.config, access: accessOf("GET", path, table) };
      return;
    }
    const rows = methods.map((m) => accessOf(m, path, table));
    if (rows.some((r) => !r) || methods.length !== 1) {
      throw new Error(
        `route ${methods.join(",")} ${route.url} has no row in the access table (api/src/access/route-table.ts)`,
      );
    }
    route.config = { ...route.config, access: rows[0] };
  });

  app.addHook("onRequest", async (request, reply) => {
    const access = request.routeOptions.config.access;
    if (!access) return; // 404 handler and routes outside /api/v1
    request.clientAddress = clientIp(request, ctx.trustedProxyHops);
    await enforceLimits(ctx.pool, [{ name: "perIp", subject: ipSubjects(request.clientAddress).ip }]);

    const p = await resolvePrincipal(ctx, request);
    request.principal = p;
    const origin = request.headers.origin;
    const csrf = request.headers["x-service-csrf"];
    checkCredential(
      access,
      p,
      { method: request.method, origin, csrfHeader: typeof csrf === "string" ? csrf : undefined },
      ctx.dashboardOrigin,
    );
    const subject = credentialSubject(p);
    if (subject) await enforceLimits(ctx.pool, [{ name: "perCredential", subject }]);

    if (access.who !== "anyone" && access.who !== "signed-in" && access.who !== "signed-in-or-key") {
      const orgId = orgIdOf(request);
      if (!orgId || !UUID.test(orgId)) throw new ServiceError("NOT_FOUND", "organization not found");
      const row = await loadOrganization(ctx, orgId.toLowerCase(), p);
      checkOrganization(access, p, { exists: !!row, role: row?.role ?? null }, orgId.toLowerCase());
      request.organization = {
        id: orgId.toLowerCase(),
        name: row!.name,
        plan: isPlan(row!.plan) ? row!.plan : ctx.defaultPlan,
        role: row!.role,
        operatorAdminChanges: row!.operator_admin_changes === true,
      };
    }
    if (ctx.accessProbe && request.headers["x-access-probe"] === "1") {
      return reply.code(204).header("x-access", "allowed").send();
    }
  });
}

export const accessControl = fp(accessPlugin, { name: "access-control" });
