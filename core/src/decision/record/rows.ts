import { receiptInsert } from "../../actions/index.js";

/**
 * The rows of a decision as SQL, given the SQL that stands for its parts: one
 * home for the single write (store.ts) and the batch write (batch-store.ts),
 * so both store exactly the same columns from the same JSON (DecisionWrite).
 * Each `from` is the FROM list of the rows to write, binding the JSON they
 * read; `actionId` stands for the recorded action's id.
 */

/** The action's row from `a`, an ActionRecord as jsonb. */
export function actionInsert(p: {
  a: string;
  organizationId: string;
  status: string;
  approvalRequestId: string;
  receiptId: string;
  /** The execution object's id and deadline of a call claimed with its decision, or two nulls. */
  claim: string;
  from: string;
}): string {
  const { a } = p;
  return `insert into protected_actions (
    id, organization_id, agent_id, api_key_id, tool_id, tool_name, action, execution, environment, status, decision_code,
    arguments_digest, arguments, request_fingerprint, idempotency_key, amount, currency,
    policy_id, policy_version_id, policy_version, policy_digest, rule_id, policy_effect, enforcement,
    agent_explanation, explanation, delegation_id, approval_request_id, task_object_id, proposal_object_id, receipt_id, expires_at,
    decision_detail, observe_window_id, relaxed, gateway_instance_id, gateway_language_revision, binding_digest,
    execution_object_id, execution_deadline)
  select (${a}->>'id')::uuid, ${p.organizationId}, (${a}->>'agentId')::uuid, (${a}->>'apiKeyId')::uuid, (${a}->>'toolId')::uuid,
         ${a}->>'toolName', ${a}->>'action', ${a}->>'execution', ${a}->>'environment', ${p.status}, ${a}->>'decisionCode',
         ${a}->>'argumentsDigest', ${a}->>'arguments', ${a}->>'requestFingerprint', ${a}->>'idempotencyKey', (${a}->>'amount')::numeric, ${a}->>'currency',
         (${a}->'policy'->>'policyId')::uuid, (${a}->'policy'->>'versionId')::uuid, (${a}->'policy'->>'version')::int,
         ${a}->'policy'->>'digest', ${a}->'policy'->>'ruleId', ${a}->'policy'->>'effect', ${a}->'policy'->>'enforcement',
         ${a}->'agentExplanation', ${a}->'explanation', (${a}->>'delegationId')::uuid, ${p.approvalRequestId},
         ${a}->>'taskObjectId', ${a}->>'proposalObjectId', ${p.receiptId}, (${a}->>'expiresAt')::timestamptz,
         ${a}->>'decisionDetail', (${a}->>'observeWindowId')::uuid, (${a}->>'relaxed')::boolean, ${a}->>'gatewayInstanceId',
         (${a}->>'gatewayLanguageRevision')::smallint, ${a}->>'bindingDigest',
         ${p.claim}
    from ${p.from}`;
}

/** The approval request from `r`, an ApprovalRecord as jsonb (none when it is JSON null). */
export function approvalInsert(p: {
  r: string;
  organizationId: string;
  actionId: string;
  from: string;
}): string {
  const { r } = p;
  return `insert into approval_requests (id, organization_id, protected_action_id, roles, approver_count, approver_kids, expires_at)
  select (${r}->>'id')::uuid, ${p.organizationId}, ${p.actionId}, array(select jsonb_array_elements_text(${r}->'roles')),
         (${r}->>'approverCount')::int, array(select jsonb_array_elements_text(${r}->'approverKids')), (${r}->>'expiresAt')::timestamptz
    from ${p.from} where ${r} is not null and ${r} <> 'null'::jsonb`;
}

/** The signed objects from `objects`, a jsonb array of ObjectRecord. */
export function objectsInsert(p: {
  objects: string;
  organizationId: string;
  actionId: string;
  from: string;
}): string {
  return `insert into signed_objects (object_id, organization_id, protected_action_id, type, object)
  select o->>'objectId', ${p.organizationId}, ${p.actionId}, o->>'type', o->'object'
    from ${p.from}, jsonb_array_elements(${p.objects}) o`;
}

/** The receipt from `r`, a ReceiptRecord without its bundle as jsonb (none when JSON null), and `bundle`. */
export function decisionReceiptInsert(p: {
  r: string;
  bundle: string;
  organizationId: string;
  actionId: string;
  from: string;
}): string {
  const { r } = p;
  return receiptInsert(
    {
      id: `(${r}->>'id')::uuid`,
      organizationId: p.organizationId,
      protectedActionId: p.actionId,
      kind: `${r}->>'kind'`,
      receiptObjectId: `${r}->>'receiptObjectId'`,
      threadId: `${r}->>'threadId'`,
      headObjectId: `${r}->>'headObjectId'`,
      outcome: `${r}->>'outcome'`,
      issuerKid: `${r}->>'issuerKid'`,
      bundle: p.bundle,
      bundleSha256: `${r}->>'bundleSha256'`,
      verifiedAtIssuance: `(${r}->>'verifiedAtIssuance')::boolean`,
    },
    `from ${p.from} where ${r} is not null and ${r} <> 'null'::jsonb`,
  );
}

/** The events from `events`, a jsonb array of EventRecord. */
export function eventsInsert(p: { events: string; organizationId: string; from: string }): string {
  return `insert into events (organization_id, type, data)
  select ${p.organizationId}, e->>'type', e->'data' from ${p.from}, jsonb_array_elements(${p.events}) e`;
}

/**
 * The re-checks of a call claimed with its decision (as the claim of an already recorded
 * decision makes them, core/src/execution/claim.ts), under share locks on the delegation and
 * the policy: the delegation unrevoked and unexpired, the policy not stopped and its active
 * version the one that decided, no rollback covering the call, the tool enabled and still bound,
 * and authorized, as decided, its server active. Given the SQL of each ClaimWithDecision field;
 * `select` is what a row that holds yields.
 */
export function claimGuard(p: {
  select: string;
  from?: string;
  delegationId: string;
  policyId: string;
  policyVersionId: string;
  policyVersion: string;
  toolId: string;
  binding: string;
}): string {
  return `select ${p.select} from ${p.from ? `${p.from}, ` : ""}delegations d, policies p, tools t join mcp_servers s on s.id = t.mcp_server_id
   where d.id = ${p.delegationId} and d.revoked_at is null and d.expires_at > now()
     and p.id = ${p.policyId} and p.emergency_stopped_at is null and p.active_version_id = ${p.policyVersionId}
     and not covered_by_supersession(p.id, ${p.policyVersion}, now(), false)
     and t.id = ${p.toolId} and t.enabled and s.status = 'active'
     and t.authorized_binding = t.binding and t.binding = ${p.binding}
   for share of d, p`;
}
