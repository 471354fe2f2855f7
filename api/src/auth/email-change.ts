import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { consumeEmailToken, issueEmailToken } from "../accounts/email-tokens-store.js";
import { audit } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { isUniqueViolation } from "../http/shared.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { closeEmailChange, setVerifiedEmail } from "./store.js";

export const emailTaken = () => new ServiceError("EMAIL_TAKEN", "this address belongs to another account");

/**
 * Start an e-mail change: one change id, an approve link sent to the new address and a reject
 * link to the old one (each replacing the earlier unused link of its kind).
 */
export async function requestEmailChange(
  ctx: Pick<ApiContext, "pool" | "mailer" | "dashboardOrigin">,
  log: FastifyBaseLogger,
  q: { userId: string; oldEmail: string; newEmail: string },
): Promise<void> {
  await inTransaction(ctx.pool, async (db) => {
    const changeId = randomUUID();
    const link = { newEmail: q.newEmail, changeId };
    const approve = await issueEmailToken(db, q.userId, "email_change_approve", link);
    const reject = await issueEmailToken(db, q.userId, "email_change_reject", link);
    await sendMail(
      db,
      ctx.mailer,
      log,
      "account",
      messages.emailChangeApprove(ctx.dashboardOrigin, q.newEmail, approve),
    );
    await sendMail(
      db,
      ctx.mailer,
      log,
      "security",
      messages.emailChangeReject(ctx.dashboardOrigin, q.oldEmail, q.newEmail, reject),
    );
  });
}

/**
 * Use an approve link, once (the caller checked the account's password): the account moves to the
 * new, now verified, address, the change's other link stops working; audited as
 * `account.email_changed`. An address taken meanwhile is 409 EMAIL_TAKEN and changes nothing.
 */
export async function approveEmailChange(pool: Pool, token: string): Promise<string> {
  return inTransaction(pool, async (db) => {
    const t = await consumeEmailToken(db, token, "email_change_approve");
    const newEmail = t.new_email!;
    await closeEmailChange(db, t.change_id);
    try {
      await setVerifiedEmail(db, t.user_id, newEmail);
    } catch (err) {
      if (isUniqueViolation(err)) throw emailTaken();
      throw err;
    }
    await audit(db, {
      organizationId: null,
      action: "account.email_changed",
      actor: { type: "user", id: t.user_id, label: newEmail },
      target: { type: "user", id: t.user_id },
    });
    return newEmail;
  });
}

/** Use a reject link, once: the change stops and its approve link no longer works. */
export async function rejectEmailChange(pool: Pool, token: string): Promise<void> {
  await inTransaction(pool, async (db) => {
    const t = await consumeEmailToken(db, token, "email_change_reject");
    await closeEmailChange(db, t.change_id);
  });
}
