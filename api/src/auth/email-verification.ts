import type { FastifyBaseLogger } from "fastify";
import { inTransaction, type Pool } from "@countersign/core/store";
import { consumeEmailToken, issueEmailToken } from "../accounts/email-tokens-store.js";
import { userByEmail } from "../accounts/users-store.js";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { markEmailVerified } from "./store.js";

/** Use a verification link, once: the account's address is verified. */
export async function verifyEmail(pool: Pool, token: string): Promise<void> {
  await inTransaction(pool, async (db) => {
    const t = await consumeEmailToken(db, token, "verify");
    await markEmailVerified(db, t.user_id);
  });
}

/**
 * Send a new verification link (replacing the earlier one) when the address has an account that
 * awaits verification; nothing otherwise, and the caller's answer is the same either way.
 */
export async function resendVerification(
  ctx: Pick<ApiContext, "pool" | "mailer" | "dashboardOrigin">,
  log: FastifyBaseLogger,
  email: string,
): Promise<void> {
  await inTransaction(ctx.pool, async (db) => {
    const user = await userByEmail(db, email);
    if (!user || user.email_verified_at || user.disabled_at) return;
    const token = await issueEmailToken(db, user.id, "verify");
    await sendMail(db, ctx.mailer, log, "account", messages.verify(ctx.dashboardOrigin, user.email, token));
  });
}
