import { canonicalJson, digestOf } from "../canonical/index.js";
import { checkDelegation } from "../evidence/delegation.js";
import type { Ed25519Verify } from "../evidence/ed25519.js";
import { timeOf } from "../evidence/fields.js";
import { verifyIdentityDocument, type IdentityDocument } from "../evidence/identity.js";
import { identityStates } from "../evidence/identity-log.js";
import type { Kid } from "../evidence/kid.js";
import type { BodyOf, SignedObject } from "../evidence/signed-object.js";
import { defaultVerify } from "../evidence/sign.js";
import { checkSignedObject } from "../evidence/verify-object.js";
import { upstreamEvidenceSchema, type RefusalReason } from "./wire.js";

export interface EvidenceExpectation {
  /** Gateway KIDs this server takes calls from. */
  gateways: readonly Kid[];
  /** This server's own KID: the EXECUTION must name it. */
  serverKid: Kid;
  /** The upstream tool name being called. */
  tool: string;
  /** The arguments as received: their digest must be the TASK's. */
  arguments: Record<string, unknown>;
  now: Date;
  /** How old an EXECUTION may be when it arrives (default 60 s: the Gateway's 30 s call and clock skew). */
  maxAgeMs?: number;
  verify?: Ed25519Verify;
}

export type EvidenceCheck =
  | {
      ok: true;
      task: SignedObject<BodyOf<"TASK">>;
      approval: SignedObject<BodyOf<"APPROVAL">> | null;
      execution: SignedObject<BodyOf<"EXECUTION">>;
    }
  | { ok: false; reason: RefusalReason; detail: string };

const refuse = (reason: RefusalReason, detail: string) => ({ ok: false, reason, detail }) as const;

/**
 * What a service-aware upstream checks before it acts: an authentic path
 * TASK → PROPOSAL (→ APPROVAL) → EXECUTION signed by a Gateway it trusts,
 * naming this server, this tool and these exact arguments (by digest), with
 * the approval a person signed when the decision required one, under a
 * delegation that grants the action, and fresh.
 */
export function checkUpstreamEvidence(raw: unknown, x: EvidenceExpectation): EvidenceCheck {
  if (raw === undefined || raw === null) return refuse("EVIDENCE_MISSING", "the call carries no evidence");
  const parsed = upstreamEvidenceSchema.safeParse(raw);
  if (!parsed.success)
    return refuse("EVIDENCE_MALFORMED", "the evidence is not a service_evidence 0.1 object");
  const verify = x.verify ?? defaultVerify;
  const documents: IdentityDocument[] = [];
  for (const d of parsed.data.identities) {
    const checked = verifyIdentityDocument(d, verify);
    if (!checked.ok)
      return refuse("SIGNATURE_INVALID", `an identity document does not verify (${checked.code})`);
    documents.push(checked.document);
  }
  const states = identityStates(documents);
  const objects = parsed.data.objects as SignedObject[];
  for (const o of objects) {
    const checked = checkSignedObject(o, states.get(o.body.actor), verify);
    if (!checked.ok) return refuse("SIGNATURE_INVALID", `object ${o.id} does not verify (${checked.code})`);
  }

  const [task, proposal, third, fourth] = objects as SignedObject[];
  const approval = third?.body.type === "APPROVAL" ? (third as SignedObject<BodyOf<"APPROVAL">>) : null;
  const execution = (approval ? fourth : third) as SignedObject | undefined;
  if (
    task?.body.type !== "TASK" ||
    proposal?.body.type !== "PROPOSAL" ||
    execution?.body.type !== "EXECUTION"
  ) {
    return refuse("CHAIN_INVALID", "the evidence does not start with TASK, PROPOSAL, (APPROVAL,) EXECUTION");
  }
  const t = task as SignedObject<BodyOf<"TASK">>;
  const p = proposal as SignedObject<BodyOf<"PROPOSAL">>;
  const e = execution as SignedObject<BodyOf<"EXECUTION">>;
  for (const o of [t, p, e]) {
    if (!x.gateways.includes(o.body.actor))
      return refuse(
        "GATEWAY_UNTRUSTED",
        `${o.body.type} is signed by ${o.body.actor}, not a trusted Gateway`,
      );
  }
  const steps = approval ? [t, p, approval, e] : [t, p, e];
  for (let i = 1; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.body.thread !== t.id || s.body.parent !== steps[i - 1]!.id)
      return refuse("CHAIN_INVALID", `${s.body.type} does not follow ${steps[i - 1]!.body.type}`);
    if (s.body.on_behalf_of !== t.body.on_behalf_of)
      return refuse("CHAIN_INVALID", `${s.body.type} acts for another principal`);
    if (timeOf(s.body.issued_at) < timeOf(steps[i - 1]!.body.issued_at))
      return refuse("CHAIN_INVALID", `${s.body.type} is dated before its parent`);
  }
  const call = canonicalJson({
    tool: t.body.payload.tool,
    action: t.body.payload.action,
    arguments_digest: t.body.payload.arguments_digest,
    amount: t.body.payload.amount,
  });
  for (const s of [p, approval, e]) {
    if (s && canonicalJson(s.body.payload.call) !== call)
      return refuse("CHAIN_INVALID", `${s.body.type} restates another call than the TASK`);
  }
  if (t.body.payload.execution !== "gateway")
    return refuse("CHAIN_INVALID", "the TASK is not executed by a Gateway");

  if (e.body.payload.server_kid !== x.serverKid)
    return refuse("SERVER_MISMATCH", "the EXECUTION names another MCP server identity");
  if (e.body.payload.upstream_tool !== x.tool)
    return refuse(
      "TOOL_MISMATCH",
      `the EXECUTION is for tool ${String(e.body.payload.upstream_tool)}, not ${x.tool}`,
    );
  let digest: string;
  try {
    digest = digestOf(x.arguments);
  } catch {
    return refuse("ARGUMENTS_MISMATCH", "the arguments are not canonical JSON");
  }
  if (digest !== t.body.payload.arguments_digest)
    return refuse("ARGUMENTS_MISMATCH", "the arguments are not the ones the TASK was decided on");

  const request = p.body.payload.approval_request;
  let until: string;
  if (request) {
    if (!approval)
      return refuse("APPROVAL_MISSING", "the decision required an approval and the evidence carries none");
    if (approval.body.payload.approval_request_id !== request.id)
      return refuse("APPROVAL_MISSING", "the APPROVAL answers another approval request");
    if (timeOf(approval.body.issued_at) >= timeOf(request.expires_at))
      return refuse("EXPIRED", "the approval came after its request expired");
    until = approval.body.payload.expires_at;
  } else {
    if (approval) return refuse("CHAIN_INVALID", "an APPROVAL without an approval request");
    if (p.body.payload.policy_effect !== "allow" && p.body.payload.enforcement === "enforce")
      return refuse("CHAIN_INVALID", "the decision did not allow the call");
    until = p.body.payload.expires_at;
  }
  if (timeOf(e.body.issued_at) >= timeOf(until))
    return refuse("EXPIRED", `the EXECUTION was signed after the authorization expired (${until})`);
  const now = x.now.getTime();
  const maxAge = x.maxAgeMs ?? 60_000;
  const executedAt = timeOf(e.body.issued_at);
  if (now - executedAt > maxAge || executedAt - now > maxAge)
    return refuse("EXPIRED", `the EXECUTION was signed at ${e.body.issued_at}, too far from now`);

  const delegations = objects.filter((o) => o.body.type === "DELEGATION") as SignedObject<
    BodyOf<"DELEGATION">
  >[];
  for (const id of e.body.delegations) {
    const d = delegations.find((o) => o.id === id);
    if (!d) return refuse("DELEGATION_INVALID", `delegation ${id} is not in the evidence`);
    const checked = checkDelegation(
      d,
      {
        principal: t.body.on_behalf_of!,
        agentId: t.body.payload.agent.id,
        action: t.body.payload.action,
        at: e.body.issued_at,
      },
      [],
    );
    if (!checked.ok) return refuse("DELEGATION_INVALID", checked.message);
  }
  return { ok: true, task: t, approval, execution: e };
}
