import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import type { FastifyBaseLogger } from "fastify";
import { hitLimits } from "../rate-limits/counter.js";
import type { Mailer, MailMessage } from "./mailer.js";

/** The per-recipient budgets of SPEC 8.1 (and the approval notices' own) a message counts against. */
export type MailKind = "account" | "reset" | "security" | "approval";
const budgetOf = {
  account: "accountMailPerRecipient",
  reset: "resetMailPerRecipient",
  security: "securityNoticePerRecipient",
  // Not in SPEC 8.1: approval requests waiting for the recipient (docs/dashboard.md "Approver e-mails").
  approval: "approvalNoticePerRecipient",
} as const;

/**
 * Send a message unless its recipient's budget for that kind is spent (the
 * request still gets its normal answer). A refusal by the mail service is
 * 503 EMAIL_DELIVERY_FAILED; callers send inside their transaction, so the
 * change that needed the message is rolled back with it.
 */
export async function sendMail(
  db: Queryable,
  mailer: Mailer,
  log: FastifyBaseLogger,
  kind: MailKind,
  message: MailMessage,
): Promise<boolean> {
  const wait = await hitLimits(db, [{ name: budgetOf[kind], subject: message.to.toLowerCase() }]);
  if (wait > 0) {
    log.info({ mail_kind: kind }, "recipient's e-mail budget spent; message not sent");
    return false;
  }
  try {
    await mailer.send(message);
    return true;
  } catch (err) {
    log.warn({ mail_error: (err as Error).message?.slice(0, 200) }, "e-mail service refused a message");
    throw new ServiceError("EMAIL_DELIVERY_FAILED", "the e-mail could not be sent; retry later", undefined, {
      "retry-after": "60",
    });
  }
}
