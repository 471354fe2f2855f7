/**
 * `countersign actions cancel ID --principal-key-file FILE`: a CANCELLATION
 * of the action's TASK signed by the organization principal (thread = parent
 * = the TASK, docs/evidence-api.md), sent by a signed-in owner or admin.
 */
import { objectBody, signObject, timestamp } from "@countersign/protocol/evidence";
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

export async function actionsCancel(ctx: CommandContext): Promise<CommandOutput> {
  onlyFlags(ctx.line, ["org", "url", "principal-key-file", "reason"]);
  const signer = readKeyFile(keyFilePath(ctx, "principal-key-file"));
  const c = creds(ctx);
  if (c.kind !== "session")
    throw new CliError(
      "cancelling an action needs a signed-in owner or admin (management keys never cancel)",
      EXIT.auth,
    );
  const org = `/orgs/${encodeURIComponent(organization(ctx, c))}`;
  const id = idArgument(ctx, "action");
  const { action } = (await cloudRequest(c, "GET", `${org}/actions/${id}`)).body as {
    action: { id: string; approval_request_id: string | null; receipt_id: string | null };
  };
  const taskId = await taskOf(c, org, action);
  const body = objectBody({
    type: "CANCELLATION",
    actor: signer.kid,
    on_behalf_of: null,
    thread: taskId,
    parent: taskId,
    delegations: [],
    issued_at: timestamp(new Date()),
    payload: { reason: ctx.line.flags.get("reason") ?? "cancelled from the command line" },
  });
  const answer = (
    await cloudRequest(c, "POST", `${org}/actions/${id}/cancel`, { cancellation: signObject(body, signer) })
  ).body as {
    action: { status: string };
    receipt: { id: string };
  };
  return done(
    ctx,
    answer,
    `Cancelled ${action.id} (status ${answer.action.status}); closure receipt ${answer.receipt.id}.`,
  );
}

/** The action's TASK id: the thread of its approval request's proposal, or of its receipt. */
async function taskOf(
  c: ReturnType<typeof creds>,
  org: string,
  action: { approval_request_id: string | null; receipt_id: string | null },
): Promise<`ko_${string}`> {
  if (action.approval_request_id) {
    const { approval } = (await cloudRequest(c, "GET", `${org}/approvals/${action.approval_request_id}`))
      .body as { approval: { task_object_id: `ko_${string}` } };
    return approval.task_object_id;
  }
  if (action.receipt_id) {
    const { receipt } = (await cloudRequest(c, "GET", `${org}/receipts/${action.receipt_id}`)).body as {
      receipt: { thread_id: `ko_${string}` };
    };
    return receipt.thread_id;
  }
  throw new CliError(
    "this action has no approval request or receipt to name its TASK; it cannot be cancelled from here",
    EXIT.refused,
  );
}
