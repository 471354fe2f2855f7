import type { FastifyBaseLogger } from "fastify";
import { inTransaction, type Pool } from "@countersign/core/store";
import { consumeEmailToken, issueEmailToken } from "../accounts/email-tokens-store.js";
import { userByEmail } from "../accounts/users-store.js";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { deleteOtherSessions } from "../sessions/store.js";
import { resetPassword } from "./store.js";

/**
 * Send a password-reset link to the address when it has a usable account; nothing otherwise, and
 * the caller's answer is the same either way. A new link replaces the earlier unused one.
 */
export async function requestPasswordReset(
  ctx: Pick<ApiContext, "pool" | "mailer" | "dashboardOrigin">,
  log: FastifyBaseLogger,
  email: string,
): Promise<void> {
  await inTransaction(ctx.pool, async (db) => {
    const user = await userByEmail(db, email);
    if (!user || user.disabled_at) return;
    const token = await issueEmailToken(db, user.id, "reset");
    await sendMail(db, ctx.mailer, log, "reset", messages.reset(ctx.dashboardOrigin, user.email, token));
  });
}

/** Use a reset link, once: the new password (its hash) is stored and every session of the person ends. */
export async function confirmPasswordReset(
  pool: Pool,
  q: { token: string; passwordHash: string },
): Promise<void> {
  await inTransaction(pool, async (db) => {
    const t = await consumeEmailToken(db, q.token, "reset");
    await resetPassword(db, t.user_id, q.passwordHash);
    await deleteOtherSessions(db, t.user_id, null);
  });
}
