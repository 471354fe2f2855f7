import type { FastifyBaseLogger } from "fastify";
import { inTransaction } from "@countersign/core/store";
import { issueEmailToken } from "../accounts/email-tokens-store.js";
import { userByEmail } from "../accounts/users-store.js";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { insertUser } from "./store.js";

/**
 * Sign-up (SPEC 5.1): a new address gets an unverified account and a verification link; an address
 * with a verified account gets a notice instead, so the caller's answer never tells who is
 * registered. An unverified account is not the person's yet: signing up again re-sends its link.
 */
export async function signUp(
  ctx: Pick<ApiContext, "pool" | "mailer" | "dashboardOrigin">,
  log: FastifyBaseLogger,
  q: { email: string; passwordHash: string; name: string | null },
): Promise<void> {
  await inTransaction(ctx.pool, async (db) => {
    const existing = await userByEmail(db, q.email);
    if (existing?.email_verified_at) {
      await sendMail(
        db,
        ctx.mailer,
        log,
        "security",
        messages.alreadyRegistered(ctx.dashboardOrigin, existing.email),
      );
      return;
    }
    const userId = existing?.id ?? (await insertUser(db, q.email, q.passwordHash, q.name));
    // The link goes to the address: only its holder can use the account.
    const token = await issueEmailToken(db, userId, "verify");
    await sendMail(db, ctx.mailer, log, "account", messages.verify(ctx.dashboardOrigin, q.email, token));
  });
}
