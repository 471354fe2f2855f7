import { digestOf } from "../canonical/index.js";
import { issueBundle, type Bundle, type Disclosure } from "./bundle.js";
import type { Signer } from "./ed25519.js";
import type { ActorType, IdentityDocument, IdentitySubject } from "./identity.js";
import { identityGenesis, signIdentity } from "./identity.js";
import { nobleSigner } from "./noble.js";
import { followingStep, objectBody, signObject } from "./object.js";
import type { BodyOf, SignedObject, StepBody } from "./signed-object.js";
import { nodeSigner } from "./sign.js";

/**
 * Deterministic sample evidence: fixed seeds, fixed times. The test vectors
 * of test/vectors/evidence, the tamper tests and the benchmark are built from
 * it, so a second implementation can regenerate every byte. Not part of the
 * public surface: the seeds are published and must never sign real evidence.
 */
export const scenarioEpoch = Date.parse("2025-01-01T00:00:00.000Z");
export const at = (seconds: number) => new Date(scenarioEpoch + seconds * 1000).toISOString();

export const scenarioSeeds = {
  gateway: new Uint8Array(32).fill(1),
  principal: new Uint8Array(32).fill(2),
  person: new Uint8Array(32).fill(3),
  mcp_server: new Uint8Array(32).fill(4),
  outsider: new Uint8Array(32).fill(5),
} as const;
export type ScenarioRole = keyof typeof scenarioSeeds;

export function scenarioSigners(impl: "node" | "noble" = "node"): Record<ScenarioRole, Signer> {
  const make = impl === "node" ? nodeSigner : nobleSigner;
  const entries = Object.entries(scenarioSeeds).map(([role, seed]) => [role, make(seed)]);
  return Object.fromEntries(entries) as Record<ScenarioRole, Signer>;
}

const organization_id = "org_vectors";
const subjects: Record<ScenarioRole, { type: ActorType; subject: IdentitySubject }> = {
  gateway: { type: "gateway", subject: { organization_id, id: "gw_1", name: "Gateway" } },
  principal: { type: "principal", subject: { organization_id, id: organization_id, name: "Vectors Inc." } },
  person: { type: "person", subject: { organization_id, id: "usr_ada", name: "Ada" } },
  mcp_server: { type: "mcp_server", subject: { organization_id, id: "srv_payments", name: "payments" } },
  outsider: { type: "person", subject: { organization_id, id: "usr_mallory", name: "Mallory" } },
};

export function scenarioIdentity(
  role: ScenarioRole,
  signer: Signer,
  subject?: Partial<IdentitySubject>,
): IdentityDocument {
  const s = subjects[role];
  const body = identityGenesis({
    publicKey: signer.publicKey,
    actor_type: s.type,
    subject: { ...s.subject, ...subject },
    issued_at: at(-10 * 86400),
  });
  return signIdentity(body, signer);
}

export const scenarioNames = [
  "approved-execution",
  "allowed-execution-failed",
  "rejected",
  "cancelled",
  "authorization-pending",
  "authorization-granted",
] as const;
export type ScenarioName = (typeof scenarioNames)[number];

export interface ScenarioOptions {
  signers?: Record<ScenarioRole, Signer>;
  /** Expiry of the delegation; default 30 days after the epoch. */
  delegationExpiresAt?: string;
  /** When set, the principal revokes the delegation at this time and the bundle carries it. */
  revokedAt?: string;
}

export const scenarioArguments = {
  order_id: "ord_1001",
  amount: "120.00",
  currency: "EUR",
  note: "Grüße, 😀",
};
export const scenarioResult = { content: [{ type: "text", text: "refund re_77 created" }], isError: false };

/** Builds one scenario's bundle; every byte follows from the name and options. */
export function buildScenario(name: ScenarioName, options: ScenarioOptions = {}): Bundle {
  const k = options.signers ?? scenarioSigners();
  const principal = k.principal.kid;
  const caller = name.startsWith("authorization");
  const needsApproval = ["approved-execution", "rejected", "authorization-granted"].includes(name);

  const delegation = signObject(
    objectBody({
      type: "DELEGATION",
      actor: principal,
      on_behalf_of: null,
      thread: null,
      parent: null,
      delegations: [],
      issued_at: at(-86400),
      payload: {
        organization_id,
        agent_id: "agt_refunds",
        permissions: ["payments.*", "crm.read"],
        expires_at: options.delegationExpiresAt ?? at(30 * 86400),
      },
    }),
    k.principal,
  );
  const relied = [delegation.id];
  const call = {
    tool: "refund_payment",
    action: "payments.refund",
    arguments_digest: digestOf(scenarioArguments),
    amount: { value: "120.00", currency: "EUR" },
  };
  const task = signObject(
    objectBody({
      type: "TASK",
      actor: k.gateway.kid,
      on_behalf_of: principal,
      thread: null,
      parent: null,
      delegations: relied,
      issued_at: at(1),
      payload: {
        protected_action_id: "7d0c3f64-5a0e-4b8e-9a43-2f1d1c9b0e11",
        execution: caller ? "caller" : "gateway",
        agent: { id: "agt_refunds", name: "refund bot" },
        ...call,
        environment: "live",
        policy: {
          policy_id: "pol_refunds",
          version_id: "pv_3",
          version: 3,
          digest: digestOf({ rules: [], default: "deny" }),
        },
        idempotency_key: "refund-ord_1001",
      },
    }),
    k.gateway,
  );
  const path: SignedObject<StepBody>[] = [task];
  const push = <S extends SignedObject<StepBody>>(s: S) => (path.push(s), s);
  const last = () => path[path.length - 1]!;

  if (name === "cancelled") {
    push(
      signObject(
        followingStep(task, {
          type: "CANCELLATION",
          actor: principal,
          on_behalf_of: null,
          delegations: [],
          issued_at: at(30),
          payload: { reason: "customer withdrew the request" },
        }),
        k.principal,
      ),
    );
  } else {
    const request = { id: "apr_42", expires_at: at(86400), roles: ["approver"], approver_count: 1 };
    const proposal = push(
      signObject(
        followingStep(task, {
          type: "PROPOSAL",
          actor: k.gateway.kid,
          on_behalf_of: principal,
          delegations: relied,
          issued_at: at(2),
          payload: {
            call,
            policy_effect: needsApproval ? "require_approval" : "allow",
            rule_id: needsApproval ? "refunds-over-100" : "small-refunds",
            enforcement: "enforce",
            approval_request: needsApproval ? request : null,
            expires_at: at(86400),
          },
        }),
        k.gateway,
      ),
    );
    if (needsApproval) {
      const answer = name === "rejected" ? "REJECTION" : "APPROVAL";
      push(
        signObject(
          answer === "APPROVAL"
            ? followingStep(proposal, {
                type: "APPROVAL",
                actor: k.person.kid,
                on_behalf_of: principal,
                delegations: [],
                issued_at: at(60),
                payload: { approval_request_id: request.id, call, expires_at: at(3600) },
              })
            : followingStep(proposal, {
                type: "REJECTION",
                actor: k.person.kid,
                on_behalf_of: principal,
                delegations: [],
                issued_at: at(60),
                payload: { approval_request_id: request.id, call, reason: "over the monthly budget" },
              }),
          k.person,
        ),
      );
    }
    if (!caller && name !== "rejected") {
      const execution = push(
        signObject(
          followingStep(last(), {
            type: "EXECUTION",
            actor: k.gateway.kid,
            on_behalf_of: principal,
            delegations: relied,
            issued_at: at(61),
            payload: { call, upstream_tool: "refund", server_kid: k.mcp_server.kid },
          }),
          k.gateway,
        ),
      );
      const failed = name === "allowed-execution-failed";
      push(
        signObject(
          followingStep(execution, {
            type: "RESULT",
            actor: k.gateway.kid,
            on_behalf_of: principal,
            delegations: [],
            issued_at: at(62),
            payload: {
              status: failed ? "failed" : "succeeded",
              result_digest: digestOf(scenarioResult),
              error_code: failed ? "UPSTREAM_TOOL_ERROR" : null,
            },
          }),
          k.gateway,
        ),
      );
    }
  }

  const supporting: SignedObject[] = [delegation];
  if (options.revokedAt) {
    supporting.push(
      signObject(
        objectBody({
          type: "REVOCATION",
          actor: principal,
          on_behalf_of: null,
          thread: null,
          parent: null,
          delegations: [],
          issued_at: options.revokedAt,
          payload: { delegation: delegation.id },
        }),
        k.principal,
      ),
    );
  }
  const head = last();
  const attest = name === "approved-execution";
  let attestation: SignedObject<BodyOf<"ATTESTATION">> | undefined;
  if (attest) {
    attestation = signObject(
      objectBody({
        type: "ATTESTATION",
        actor: k.mcp_server.kid,
        on_behalf_of: null,
        thread: null,
        parent: null,
        delegations: [],
        issued_at: at(62),
        payload: { subject: head.id, claim: "result-delivered", statement: { refund_id: "re_77" } },
      }),
      k.mcp_server,
    );
    supporting.push(attestation);
  }

  const roles: ScenarioRole[] = ["gateway", "principal"];
  if (needsApproval) roles.push("person");
  if (attest) roles.push("mcp_server");
  const disclosures: Disclosure[] = [{ object_id: task.id, field: "arguments", value: scenarioArguments }];
  if (head.body.type === "RESULT")
    disclosures.push({ object_id: head.id, field: "result", value: scenarioResult });

  return issueBundle({
    issuer: k.gateway,
    issued_at: at(63),
    path,
    supporting,
    identities: roles.map((r) => scenarioIdentity(r, k[r])),
    trusted_attesters: attest ? [k.mcp_server.kid] : [],
    disclosures,
  });
}
