import type { FastifyBaseLogger } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import type { Plan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import type { Role } from "@countersign/protocol/wire";
import { newToken, tokenHash } from "../accounts/tokens.js";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { isMemberByEmail } from "../members/store.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { hasOpenInvitation, insertInvitation, seatsTaken, type InvitationRow } from "./store.js";

/** An invitation lives 1 hour to 30 days, 7 days by default. */
const DEFAULT_TTL = 7 * 24 * 3600;

/**
 * Invite an address to the organization with a role (SPEC 5.6), audited as `invitation.created`,
 * and e-mail the link. Invitations count as seats against the plan's member limit; creations of one
 * organization are serialized so the count is exact. The link's token is stored only as a hash.
 */
export async function createInvitation(
  ctx: Pick<ApiContext, "pool" | "mailer" | "dashboardOrigin">,
  log: FastifyBaseLogger,
  q: {
    organization: { id: string; name: string; plan: Plan };
    email: string;
    role: Role;
    expiresInSeconds: number | undefined;
    invitedBy: string | null;
    actor: Actor;
  },
): Promise<InvitationRow> {
  const o = q.organization;
  const token = newToken();
  return inTransaction(ctx.pool, async (db) => {
    await lockOrganization(db, o.id);
    if (await isMemberByEmail(db, o.id, q.email))
      throw new ServiceError("ALREADY_MEMBER", "this address already belongs to a member");
    if (await hasOpenInvitation(db, o.id, q.email))
      throw new ServiceError("INVITATION_EXISTS", "an open invitation for this address exists");
    checkQuota(o.plan, "members", await seatsTaken(db, o.id));
    const inv = await insertInvitation(db, {
      orgId: o.id,
      email: q.email,
      role: q.role,
      tokenHash: tokenHash(token),
      invitedBy: q.invitedBy,
      ttlSeconds: q.expiresInSeconds ?? DEFAULT_TTL,
    });
    await audit(db, {
      organizationId: o.id,
      action: "invitation.created",
      actor: q.actor,
      target: { type: "invitation", id: inv.id },
      details: { email: q.email, role: q.role },
    });
    await sendMail(
      db,
      ctx.mailer,
      log,
      "account",
      messages.invitation(ctx.dashboardOrigin, q.email, o.name, q.role, token),
    );
    return inv;
  });
}
