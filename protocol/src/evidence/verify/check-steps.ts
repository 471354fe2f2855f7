import { canonicalJson } from "../../canonical/index.js";
import { checkDelegation } from "../delegation.js";
import { timeOf } from "../fields.js";
import type { BodyOf, SignedObject } from "../signed-object.js";
import { objectsOfType, task, type VerifyContext } from "./context.js";

/** Check `calls`: every step that restates the call restates the TASK's exact call. */
export function checkCalls(ctx: VerifyContext): void {
  const t = task(ctx);
  if (!t || !ctx.path) return ctx.findings.skip("calls");
  ctx.findings.run("calls");
  const { tool, action, arguments_digest, amount } = t.body.payload;
  const expected = canonicalJson({ tool, action, arguments_digest, amount });
  for (const step of ctx.path) {
    if (!("call" in step.body.payload)) continue;
    if (canonicalJson(step.body.payload.call) !== expected) {
      ctx.findings.error("calls", "CALL_MISMATCH", `${step.body.type} restates another call than the TASK`, {
        object_id: step.id,
      });
    }
  }
}

/**
 * Check `delegations`: each delegation a step relies on is in the bundle,
 * authentic, of the step's principal, for the TASK's agent and action, not
 * expired and not revoked at the step's time.
 */
export function checkDelegations(ctx: VerifyContext): void {
  const t = task(ctx);
  if (!t || !ctx.path) return ctx.findings.skip("delegations");
  ctx.findings.run("delegations");
  const revocations = objectsOfType(ctx, "REVOCATION").filter((r) => ctx.authentic.has(r.id));
  const principal = ctx.identities.get(t.body.on_behalf_of);
  for (const step of ctx.path) {
    for (const id of step.body.delegations) {
      const where = { object_id: id };
      const delegation = ctx.byId.get(id);
      if (!delegation) {
        ctx.findings.error(
          "delegations",
          "DELEGATION_MISSING",
          `${step.body.type} relies on a delegation the bundle lacks`,
          where,
        );
        continue;
      }
      if (delegation.body.type !== "DELEGATION" || !ctx.authentic.has(id)) {
        ctx.findings.error(
          "delegations",
          "DELEGATION_INVALID",
          `${step.body.type} relies on an object that is no authentic DELEGATION`,
          where,
        );
        continue;
      }
      const d = delegation as SignedObject<BodyOf<"DELEGATION">>;
      if (principal && d.body.payload.organization_id !== principal.subject.organization_id) {
        ctx.findings.error(
          "delegations",
          "DELEGATION_INVALID",
          "delegation names another organization",
          where,
        );
      }
      const use = {
        principal: step.body.on_behalf_of ?? "",
        agentId: t.body.payload.agent.id,
        action: t.body.payload.action,
        at: step.body.issued_at,
      };
      const result = checkDelegation(d, use, revocations);
      if (!result.ok)
        ctx.findings.error("delegations", result.code, `${step.body.type}: ${result.message}`, where);
    }
  }
  for (const r of revocations) {
    const last = ctx.path[ctx.path.length - 1]!;
    if (
      timeOf(r.body.issued_at) > timeOf(last.body.issued_at) &&
      ctx.path.some((s) => s.body.delegations.includes(r.body.payload.delegation))
    ) {
      ctx.findings.note(
        `delegation ${r.body.payload.delegation} was revoked at ${r.body.issued_at}, after the steps that relied on it`,
      );
    }
  }
}

/**
 * Check `approvals`: approvals and rejections answer the proposal's approval
 * request in time; an execution or a granted authorization follows an
 * approval, or a proposal that needed none, before it expired.
 */
export function checkApprovals(ctx: VerifyContext): void {
  if (!ctx.path) return ctx.findings.skip("approvals");
  ctx.findings.run("approvals");
  const path = ctx.path;
  const error = (code: "APPROVAL_MISMATCH" | "APPROVAL_EXPIRED", message: string, id: string) =>
    ctx.findings.error("approvals", code, message, { object_id: id });
  for (let i = 1; i < path.length; i++) {
    const step = path[i]!.body;
    const id = path[i]!.id;
    const parent = path[i - 1]!.body;
    if (step.type === "PROPOSAL") {
      const needsApproval =
        step.payload.policy_effect === "require_approval" && step.payload.enforcement === "enforce";
      if (needsApproval !== (step.payload.approval_request !== null)) {
        error(
          "APPROVAL_MISMATCH",
          "a proposal has an approval request exactly when an enforced rule requires approval",
          id,
        );
      }
      if (i === path.length - 1 && step.payload.approval_request !== null) {
        error(
          "APPROVAL_MISMATCH",
          "an authorization receipt cannot end at a proposal that awaits approval",
          id,
        );
      }
      if (step.payload.policy_effect === "deny" && step.payload.enforcement === "enforce") {
        error("APPROVAL_MISMATCH", "a denied call has no proposal", id);
      }
    }
    if ((step.type === "APPROVAL" || step.type === "REJECTION") && parent.type === "PROPOSAL") {
      const request = parent.payload.approval_request;
      if (!request || request.id !== step.payload.approval_request_id) {
        error("APPROVAL_MISMATCH", `${step.type} does not answer the proposal's approval request`, id);
      } else if (timeOf(step.issued_at) >= timeOf(request.expires_at)) {
        error("APPROVAL_EXPIRED", `${step.type} was signed after the approval request expired`, id);
      }
      if (
        step.type === "APPROVAL" &&
        request &&
        timeOf(step.payload.expires_at) > timeOf(request.expires_at)
      ) {
        error("APPROVAL_MISMATCH", "the approval outlives its request", id);
      }
    }
    if (step.type === "EXECUTION") {
      if (parent.type === "PROPOSAL") {
        if (parent.payload.approval_request !== null)
          error("APPROVAL_MISMATCH", "execution without the required approval", id);
        if (timeOf(step.issued_at) >= timeOf(parent.payload.expires_at))
          error("APPROVAL_EXPIRED", "execution after the proposal expired", id);
      }
      if (parent.type === "APPROVAL" && timeOf(step.issued_at) >= timeOf(parent.payload.expires_at)) {
        error("APPROVAL_EXPIRED", "execution after the approval expired", id);
      }
    }
  }
}
