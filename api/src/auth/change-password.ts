import type { FastifyBaseLogger } from "fastify";
import { inTransaction } from "@countersign/core/store";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { deleteOtherSessions } from "../sessions/store.js";
import { setPasswordHash } from "./store.js";

/**
 * Store a new password (its hash), sign every other browser of the person out and send them a
 * notice, in one transaction. The caller checked the current password.
 */
export async function changePassword(
  ctx: Pick<ApiContext, "pool" | "mailer">,
  log: FastifyBaseLogger,
  q: { userId: string; email: string; keepSessionId: string; passwordHash: string },
): Promise<void> {
  await inTransaction(ctx.pool, async (db) => {
    await setPasswordHash(db, q.userId, q.passwordHash);
    await deleteOtherSessions(db, q.userId, q.keepSessionId);
    await sendMail(db, ctx.mailer, log, "security", messages.passwordChanged(q.email));
  });
}
