/** Tools (SPEC 2.3): what agents call, bound to an upstream tool, and the admin's authorization of the binding. */
import {
  toolAnswerSchema,
  toolListSchema,
  type ToolCreate,
  type ToolPatch,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export type { ToolCreate, ToolPatch };
const one = (orgId: string, id: string) => inOrg(orgId, `/tools/${seg(id)}`);

export const toolKeys = {
  all: (orgId: string) => ["tools", orgId] as const,
  ofServer: (orgId: string, serverId: string) => ["tools", orgId, serverId] as const,
  one: (toolId: string) => ["tool", toolId] as const,
};

export const toolsApi = {
  list: (orgId: string, serverId?: string) =>
    cloud.request("GET", inOrg(orgId, "/tools"), toolListSchema, {
      query: { limit: 100, mcp_server_id: serverId },
    }),
  get: (orgId: string, id: string) =>
    cloud.request("GET", one(orgId, id), toolAnswerSchema).then((r) => r.tool),
  create: (orgId: string, body: ToolCreate) =>
    cloud.request("POST", inOrg(orgId, "/tools"), toolAnswerSchema, { body }).then((r) => r.tool),
  update: (orgId: string, id: string, body: ToolPatch) =>
    cloud.request("PATCH", one(orgId, id), toolAnswerSchema, { body }).then((r) => r.tool),
  /** Authorizes exactly the binding the admin was shown: BINDING_CHANGED when it changed meanwhile. */
  authorize: (orgId: string, id: string, bindingDigest: string) =>
    cloud
      .request("POST", `${one(orgId, id)}/authorize`, toolAnswerSchema, {
        body: { binding_digest: bindingDigest },
      })
      .then((r) => r.tool),
};
