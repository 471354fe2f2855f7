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
    const user = await db.query<{ id: string }>(
      "insert into users (email, email_verified_at, password_hash, name) values ($1, now(), $2, 'Demo owner') returning id",
      [ownerEmail, await hashPassword(ownerPassword)],
    );
    const ownerId = user.rows[0]!.id;
    const org = await db.query<{ id: string }>(
      "insert into organizations (name, slug, plan) values ('Demo', $1, 'enterprise') returning id",
      [`demo-${randomBytes(3).toString("hex")}`],
    );
    const orgId = org.rows[0]!.id;
    await db.query("insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')", [
      orgId,
      ownerId,
    ]);

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

    const agent = await db.query<{ id: string }>(
      "insert into agents (organization_id, name) values ($1, 'refund-bot') returning id",
      [orgId],
    );
    const agentId = agent.rows[0]!.id;
    const integration = await db.query<{ id: string }>(
      "insert into mcp_servers (organization_id, name, kind) values ($1, 'Refund service (decision only)', 'decision_only') returning id",
      [orgId],
    );
    const mapping = { amount_path: "amount", currency: "EUR" };
    const binding = JSON.stringify({ credential_version: 0, input_schema: null, amount_mapping: mapping });
    await db.query(
      `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, description, amount_mapping, enabled, binding, authorized_binding)
       values ($1, $2, $3, $3, 'payments.refund', 'Refund part of an order', $4, true, $5, $5)`,
      [orgId, integration.rows[0]!.id, DEMO_TOOL, JSON.stringify(mapping), binding],
    );

    const upstream = await db.query<{ id: string }>(
      "insert into mcp_servers (organization_id, name, kind, url) values ($1, 'Sample upstream (make run)', 'mcp', $2) returning id",
      [orgId, upstreamUrl],
    );
    const mcpServerId = upstream.rows[0]!.id;
    const mcpBinding = JSON.stringify(mcpToolBinding(mcpServerId, upstreamUrl, mapping));
    await db.query(
      `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, enabled, binding, authorized_binding)
       values ($1, $2, $3, $3, 'payments.refund', 'Refund part of an order, run by the Gateway on the sample upstream', $4, $5, true, $6, $6)`,
      [
        orgId,
        mcpServerId,
        DEMO_MCP_TOOL,
        JSON.stringify(DEMO_MCP_SCHEMA),
        JSON.stringify(mapping),
        mcpBinding,
      ],
    );

    const document = parsePolicy(DEMO_POLICY);
    const text = JSON.stringify(document);
    const policy = await db.query<{ id: string }>(
      "insert into policies (organization_id, name) values ($1, 'Refunds') returning id",
      [orgId],
    );
    const policyId = policy.rows[0]!.id;
    const version = await db.query<{ id: string }>(
      `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, status, activated_at)
       values ($1, $2, 1, $3, $4, $5, $6, 'active', now()) returning id`,
      [policyId, orgId, text, Buffer.byteLength(text), policyDigest(document), languageRevision(document)],
    );
    await db.query("update policies set active_version_id = $2 where id = $1", [
      policyId,
      version.rows[0]!.id,
    ]);
    await db.query("update agents set policy_id = $2 where id = $1", [agentId, policyId]);

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
  await db.query(
    "insert into delegations (organization_id, agent_id, object_id, object, permissions, expires_at) values ($1, $2, $3, $4, $5, $6)",
    [orgId, agentId, object.id, JSON.stringify(object), ["payments.*"], expiresAt],
  );
}
