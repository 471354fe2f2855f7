import { ServiceError } from "@countersign/protocol/errors";
import type { Pool } from "@countersign/core/store";
import type { FastifyBaseLogger } from "fastify";
import type { Mailer } from "../mail/mailer.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { claimUnnotified, recipientsOf } from "./store.js";

/** How many approval requests one pass claims. */
export const NOTICE_BATCH = 20;

export interface NoticeOptions {
  pool: Pool;
  mailer: Mailer;
  /** The dashboard's origin: the e-mail's link is <origin>/orgs/<org_id>/approvals/<approval_id>. */
  dashboardOrigin: string;
  log: FastifyBaseLogger;
}

/**
 * One pass of approver e-mails: claims new approval requests (each by exactly one api process,
 * store.ts) and mails every person who may decide a still-waiting one, once, within that person's
 * approval-notice budget. A request decided or lapsed before its turn is only marked. A message the
 * mail server refuses is logged (without the address) and not retried: the request is on the
 * approvals page either way, and a retry could mail the others twice. Returns how many requests
 * it claimed (a full batch means more may wait).
 */
export async function sendApprovalNotices(opts: NoticeOptions, batch = NOTICE_BATCH): Promise<number> {
  const claimed = await claimUnnotified(opts.pool, batch);
  for (const r of claimed) {
    if (!r.waiting) continue;
    const people = await recipientsOf(opts.pool, r);
    for (const person of people) {
      const message = messages.approvalWaiting(opts.dashboardOrigin, person.email, {
        organizationId: r.organization_id,
        organization: r.organization_name,
        approvalId: r.id,
        agent: r.agent_name,
        tool: r.tool_name,
        amount: r.amount,
        currency: r.currency,
        expiresAt: new Date(r.expires_at),
      });
      try {
        await sendMail(opts.pool, opts.mailer, opts.log, "approval", message);
      } catch (err) {
        // sendMail already logged the refusal; anything else is this pass's fault, not the request's.
        if (!(err instanceof ServiceError)) throw err;
      }
    }
  }
  return claimed.length;
}
