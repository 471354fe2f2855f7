/**
 * `countersign actions cancel ID --principal-key-file FILE`: a CANCELLATION
 * of the action's TASK signed by the organization principal (thread = parent
 * = the TASK, docs/evidence-api.md), sent by a signed-in owner or admin.
 */
import {
  objectBody,
  objectIdSchema,
  signObject,
  timestamp,
  type ObjectId,
} from "@countersign/protocol/evidence";
import {
  actionAnswerSchema,
  approvalAnswerSchema,
  cancellationAnswerSchema,
  receiptAnswerSchema,
  type Action,
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
  const { action } = await cloudRequest(c, "GET", `${org}/actions/${id}`, actionAnswerSchema);
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
  const answer = await cloudRequest(c, "POST", `${org}/actions/${id}/cancel`, cancellationAnswerSchema, {
    cancellation: signObject(body, signer),
  });
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
  action: Pick<Action, "approval_request_id" | "receipt_id">,
): Promise<ObjectId> {
  let task: string | null = null;
  if (action.approval_request_id)
    task = (
      await cloudRequest(c, "GET", `${org}/approvals/${action.approval_request_id}`, approvalAnswerSchema)
    ).approval.task_object_id;
  if (!task && action.receipt_id)
    task = (await cloudRequest(c, "GET", `${org}/receipts/${action.receipt_id}`, receiptAnswerSchema)).receipt
      .thread_id;
  const id = objectIdSchema.safeParse(task);
  if (id.success) return id.data;
  throw new CliError(
    "this action has no approval request or receipt to name its TASK; it cannot be cancelled from here",
    EXIT.refused,
  );
}
