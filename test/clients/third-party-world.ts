/**
 * An organization as a user sets it up for MCP clients nobody here wrote
 * (issue 40, "Done when"): the interactive upstream (an SDK McpServer whose
 * `refund` declares a title, annotations and an output schema) registered
 * through the Cloud API, its `refund` tool made and enabled by an admin (a
 * discovery, so what the server declared is what the Gateway lists), and the
 * refund policy: up to 100 EUR allowed, over 100 held for an admin, over
 * 10000 denied. `approve` is a person's approval of a held call.
 */
import { randomBytes } from "node:crypto";
import { decideApproval } from "../../core/src/approvals/index.js";
import type { Pool } from "../../core/src/store/index.js";
import {
  createAuthorizationWorld,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import type { CloudApi } from "../fixtures/cloud-api.js";
import type { TestCa } from "../fixtures/https-receiver.js";
import { startInteractiveUpstream, type InteractiveUpstream } from "../fixtures/interactive-upstream.js";
import { signedInMember } from "../fixtures/policies.js";
import type { TestGateway } from "../gateway/harness.js";

export interface ThirdPartyWorld {
  world: AuthorizationWorld;
  upstream: InteractiveUpstream;
  /** The exposed name of the upstream's `refund`. */
  tool: string;
  approve(approvalRequestId: string): Promise<void>;
  close(): Promise<void>;
}

export async function thirdPartyWorld(
  db: Pool,
  api: CloudApi,
  gw: Pick<TestGateway, "keyHashSecret" | "gateway">,
  ca: TestCa,
): Promise<ThirdPartyWorld> {
  const world = await createAuthorizationWorld(db, gw.keyHashSecret);
  const { b: admin } = await signedInMember(api, db, world.organizationId, "admin");
  const upstream = await startInteractiveUpstream(ca);
  const server = await admin.post(`/orgs/${world.organizationId}/mcp-servers`, {
    kind: "mcp",
    name: `payments-${randomBytes(3).toString("hex")}`,
    url: upstream.url,
  });
  if (server.status !== 201) throw new Error(`mcp server ${server.status} ${server.text}`);
  const tool = await admin.post(`/orgs/${world.organizationId}/tools`, {
    mcp_server_id: server.body.mcp_server.id,
    exposed_name: "refund_payment",
    upstream_name: "refund",
    action: "payments.refund",
    amount_mapping: { amount_path: "amount", currency: "EUR" },
    enabled: true,
  });
  if (tool.status !== 201) throw new Error(`tool ${tool.status} ${tool.text}`);
  return {
    world,
    upstream,
    tool: tool.body.tool.exposed_name,
    async approve(approvalRequestId) {
      const object = await signDecision(db, approvalRequestId, world.approver.signer, "APPROVAL");
      await decideApproval(db, {
        organizationId: world.organizationId,
        approvalRequestId,
        userId: world.approver.userId,
        object,
        identity: gw.gateway.identity,
      });
    },
    close: () => upstream.close(),
  };
}
