/**
 * `countersign approvals list|show|approve|reject`: read approval requests,
 * and decide one with the personal key, signing an APPROVAL or REJECTION that
 * answers the request's PROPOSAL exactly (docs/evidence-api.md).
 */
import { personDecisionBody, signObject } from "@countersign/protocol/evidence";
import {
  approvalAnswerSchema,
  approvalDecisionAnswerSchema,
  approvalListSchema,
  type Approval,
} from "@countersign/protocol/wire";
import { cloudRequest } from "../cloud/client.js";
import { CliError } from "../cloud/errors.js";
import { EXIT } from "../cloud/exit-codes.js";
import { readKeyFile } from "../cloud/key-file.js";
import { onlyFlags } from "../command-line.js";
import {
  creds,
  done,
  idArgument,
  keyFilePath,
  organization,
  type CommandContext,
  type CommandOutput,
} from "./context.js";

const line = (a: Approval) =>
  `${a.id}  ${a.status.padEnd(10)}  ${a.action?.agent.name ?? "-"}  ${a.action?.tool ?? "-"}  ${a.action?.amount ? `${a.action.amount.value} ${a.action.amount.currency}` : ""}  expires ${a.expires_at}`;

export async function approvalsList(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "status", "agent-id", "limit", "cursor"]);
  const c = creds(ctx);
  const query = new URLSearchParams();
  for (const [flag, param] of [
    ["status", "status"],
    ["agent-id", "agent_id"],
    ["limit", "limit"],
    ["cursor", "cursor"],
  ] as const) {
    const v = ctx.line.flags.get(flag);
    if (v !== undefined) query.set(param, v);
  }
  const qs = query.size ? `?${query}` : "";
  const page = await cloudRequest(
    c,
    "GET",
    `/orgs/${encodeURIComponent(organization(ctx, c))}/approvals${qs}`,
    approvalListSchema,
  );
  const human = page.items.length ? page.items.map(line).join("\n") : "No approval requests.";
  return done(ctx, page, page.next_cursor ? `${human}\nMore: --cursor ${page.next_cursor}` : human);
}

async function fetchApproval(
  ctx: CommandContext,
): Promise<{ approval: Approval; path: string; c: ReturnType<typeof creds> }> {
  const c = creds(ctx);
  const path = `/orgs/${encodeURIComponent(organization(ctx, c))}/approvals/${idArgument(ctx, "approval request")}`;
  const { approval } = await cloudRequest(c, "GET", path, approvalAnswerSchema);
  return { approval, path, c };
}

export async function approvalsShow(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url"]);
  const { approval } = await fetchApproval(ctx);
  const call: { tool?: string; arguments_digest?: string } = approval.proposal?.body.payload.call ?? {};
  const human = [
    line(approval),
    `action     ${approval.action?.id ?? "-"} (${approval.action?.action ?? "-"})`,
    `call       ${call.tool ?? approval.action?.tool ?? "-"} ${call.arguments_digest ?? ""}`,
    `approvers  ${approval.approver_kids.join(", ")}`,
  ].join("\n");
  return done(ctx, { approval }, human);
}

export async function approvalsDecide(
  ctx: CommandContext,
  type: "APPROVAL" | "REJECTION",
): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "key-file", ...(type === "REJECTION" ? ["reason"] : [])]);
  const signer = readKeyFile(keyFilePath(ctx));
  const { approval, path, c } = await fetchApproval(ctx);
  if (c.kind !== "session")
    throw new CliError(
      "deciding an approval needs a person: run `countersign signin` (management keys never decide)",
      EXIT.auth,
    );
  if (!approval.approver_kids.includes(signer.kid)) {
    throw new CliError(
      `your key ${signer.kid} is not among this request's approvers (bind it before the request is created)`,
      EXIT.refused,
    );
  }
  const { proposal } = approval;
  if (!proposal)
    throw new CliError(
      "this approval request no longer carries its PROPOSAL: it cannot be decided",
      EXIT.refused,
    );
  const body = personDecisionBody(signer.kid, { ...approval, proposal }, type, {
    reason: ctx.line.flags.get("reason"),
  });
  const answer = await cloudRequest(c, "POST", `${path}/decision`, approvalDecisionAnswerSchema, {
    decision: signObject(body, signer),
  });
  return done(
    ctx,
    answer,
    `${type === "APPROVAL" ? "Approved" : "Rejected"} ${approval.id} (status ${answer.approval.status}).`,
  );
}
