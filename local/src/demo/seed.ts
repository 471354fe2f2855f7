import { randomBytes } from "node:crypto";
import { digestOf } from "@countersign/protocol/canonical";
import { hashPassword } from "@countersign/api";
import {
  generateSeed,
  identityGenesis,
  nodeSigner,
  signIdentity,
  signDelegation,
  timestamp,
  toBase64url,
  type Signer,
} from "@countersign/protocol/evidence";
import {
  bindPersonalIdentity,
  challengeMessage,
  createChallenge,
  submitPrincipal,
} from "@countersign/core/identities";
import { insertApiKey } from "@countersign/core/keys";
import { languageRevision, parsePolicy, policyDigest } from "@countersign/protocol/policy";
import { inTransaction, type Pool, type Queryable } from "@countersign/core/store";
import {
  insertActivePolicy,
  insertAgent,
  insertAuthorizedTool,
  insertDelegation,
  insertMcpServer,
  insertOrganization,
  insertOwner,
} from "./seed-store.js";

/** The demo's decision-only tool: refunds, with the amount read from the arguments. */
export const DEMO_TOOL = "issue_refund";
export const DEMO_POLICY = {
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "large-refunds-need-an-owner",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
      approvers: { roles: ["owner"], count: 1 },
    },
    {
      id: "small-refunds",
      effect: "allow",
      conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
    },
  ],
};

/** The demo's Gateway-enforced tool: the sample upstream's refund, run by the Gateway itself. */
export const DEMO_MCP_TOOL = "refund_payment";

export interface DemoSeed {
  org_id: string;
  agent_id: string;
  gateway_key: string;
  decision_only_tool: string;
  allowed_arguments: Record<string, unknown>;
  approval_arguments: Record<string, unknown>;
  mcp_tool: string;
  mcp_allowed_arguments: Record<string, unknown>;
  /** The sample upstream the demo's MCP server points at. */
  mcp_server_id: string;
  owner_email: string;
  owner_password: string;
  /** Private keys a browser would hold; here for scripts and tutorials only (SPEC 2.1 "key backups"). */
  principal_key: string;
  owner_identity_key: string;
}

/**
 * The demo organization of `make run`: an owner who can sign in,
 * the organization principal, an agent with a gateway key, a decision-only
 * integration with one tool, a policy (allow up to 100 EUR, an owner's
 * approval above), and the principal's delegation to the agent. Written
 * through the core functions the Cloud API uses, in one transaction.
 */
export async function seedDemo(pool: Pool, keyHashSecret: Buffer, upstreamUrl: string): Promise<DemoSeed> {
  const ownerEmail = "owner@demo.countersign.local";
  const ownerPassword = randomBytes(12).toString("base64url");
  const principalSeed = generateSeed();
  const ownerIdentitySeed = generateSeed();
  return inTransaction(pool, async (db) => {
    const ownerId = await insertOwner(db, ownerEmail, await hashPassword(ownerPassword));
    const orgId = await insertOrganization(db, `demo-${randomBytes(3).toString("hex")}`, ownerId);

    const principalSigner = nodeSigner(principalSeed);
    await submitPrincipal(db, {
      organizationId: orgId,
      document: signIdentity(
        identityGenesis({
          publicKey: principalSigner.publicKey,
          actor_type: "principal",
          subject: { organization_id: orgId, id: orgId, name: "Demo" },
          issued_at: timestamp(Date.now() - 1000),
        }),
        principalSigner,
      ),
    });
    const owner = nodeSigner(ownerIdentitySeed);
    const challenge = await createChallenge(db, ownerId);
    await bindPersonalIdentity(db, {
      userId: ownerId,
      challengeId: challenge.id,
      signature: toBase64url(owner.sign(challengeMessage(challenge.challenge))),
      document: signIdentity(
        identityGenesis({
          publicKey: owner.publicKey,
          actor_type: "person",
          subject: { organization_id: orgId, id: ownerId, name: "Demo owner" },
          issued_at: timestamp(Date.now() - 1000),
        }),
        owner,
      ),
    });

    const agentId = await insertAgent(db, orgId, "refund-bot");
    const integrationId = await insertMcpServer(
      db,
      orgId,
      "Refund service (decision only)",
      "decision_only",
      null,
    );
    const mapping = { amount_path: "amount", currency: "EUR" };
    const binding = JSON.stringify({ credential_version: 0, input_schema: null, amount_mapping: mapping });
    await insertAuthorizedTool(db, {
      orgId,
      serverId: integrationId,
      name: DEMO_TOOL,
      description: "Refund part of an order",
      inputSchema: null,
      mapping: JSON.stringify(mapping),
      binding,
    });

    const mcpServerId = await insertMcpServer(db, orgId, "Sample upstream (make run)", "mcp", upstreamUrl);
    await insertAuthorizedTool(db, {
      orgId,
      serverId: mcpServerId,
      name: DEMO_MCP_TOOL,
      description: "Refund part of an order, run by the Gateway on the sample upstream",
      inputSchema: JSON.stringify(DEMO_MCP_SCHEMA),
      mapping: JSON.stringify(mapping),
      binding: JSON.stringify(mcpToolBinding(mcpServerId, upstreamUrl, mapping)),
    });

    const document = parsePolicy(DEMO_POLICY);
    const text = JSON.stringify(document);
    await insertActivePolicy(db, {
      orgId,
      agentId,
      name: "Refunds",
      text,
      digest: policyDigest(document),
      languageRevision: languageRevision(document),
    });

    await delegate(db, orgId, agentId, principalSigner);
    const key = await insertApiKey(db, keyHashSecret, {
      organizationId: orgId,
      kind: "gateway",
      environment: "test",
      name: "refund-bot demo key",
      agentId,
      createdBy: ownerId,
    });
    return {
      org_id: orgId,
      agent_id: agentId,
      gateway_key: key.key,
      decision_only_tool: DEMO_TOOL,
      allowed_arguments: { order_id: "ord_1001", amount: 25 },
      approval_arguments: { order_id: "ord_1002", amount: 250 },
      mcp_tool: DEMO_MCP_TOOL,
      mcp_allowed_arguments: { order_id: "ord_1003", amount: 30 },
      mcp_server_id: mcpServerId,
      owner_email: ownerEmail,
      owner_password: ownerPassword,
      principal_key: toBase64url(principalSeed),
      owner_identity_key: toBase64url(ownerIdentitySeed),
    };
  });
}

const DEMO_MCP_SCHEMA = {
  type: "object",
  properties: { order_id: { type: "string" }, amount: { type: "integer", minimum: 1 } },
  required: ["order_id", "amount"],
};

/** The demo MCP tool's binding pin (what the Cloud API's authorize would pin: api/src/tools/binding.ts). */
export function mcpToolBinding(
  serverId: string,
  url: string,
  mapping: unknown,
  serverKid: string | null = null,
) {
  return {
    mcp_server_id: serverId,
    url,
    credential_version: 0,
    server_kid: serverKid,
    upstream_name: DEMO_MCP_TOOL,
    input_schema: digestOf(DEMO_MCP_SCHEMA),
    amount_mapping: digestOf(mapping),
  };
}

/** The principal's DELEGATION of `payments.*` to the agent for a year. */
async function delegate(db: Queryable, orgId: string, agentId: string, principal: Signer): Promise<void> {
  const expiresAt = new Date(Date.now() + 365 * 86400_000);
  const object = signDelegation(principal, {
    organization_id: orgId,
    agent_id: agentId,
    permissions: ["payments.*"],
    expires_at: expiresAt,
  });
  await insertDelegation(db, orgId, agentId, object, ["payments.*"], expiresAt);
}
