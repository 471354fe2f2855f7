import type { MailMessage } from "./mailer.js";

/**
 * The account e-mails. Links point at the dashboard, which posts the token to
 * the matching /auth route; tokens travel in the fragment so they never reach
 * a server log or a Referer header.
 */
const link = (origin: string, page: string, token: string) => `${origin}/${page}#token=${token}`;

export const messages = {
  verify(origin: string, to: string, token: string): MailMessage {
    const url = link(origin, "verify-email", token);
    return {
      to,
      subject: "Verify your e-mail address",
      text: `Confirm this address for your Countersign account:\n\n${url}\n\nThe link works for 24 hours.`,
      links: [url],
    };
  },
  alreadyRegistered(origin: string, to: string): MailMessage {
    const url = `${origin}/password-reset`;
    return {
      to,
      subject: "Someone tried to sign up with your address",
      text: `This address already has a Countersign account. If you forgot your password, reset it here:\n\n${url}`,
      links: [url],
    };
  },
  reset(origin: string, to: string, token: string): MailMessage {
    const url = link(origin, "password-reset", token);
    return {
      to,
      subject: "Reset your password",
      text: `Choose a new password for your Countersign account:\n\n${url}\n\nThe link works for 1 hour. If you did not ask for it, ignore this message.`,
      links: [url],
    };
  },
  passwordChanged(to: string): MailMessage {
    return {
      to,
      subject: "Your password was changed",
      text: "The password of your Countersign account was just changed. If this was not you, reset it now.",
      links: [],
    };
  },
  emailChangeApprove(origin: string, to: string, token: string): MailMessage {
    const url = link(origin, "email-change/approve", token);
    return {
      to,
      subject: "Confirm your new e-mail address",
      text: `Approve moving your Countersign account to this address:\n\n${url}\n\nThe link works for 24 hours.`,
      links: [url],
    };
  },
  emailChangeReject(origin: string, to: string, newEmail: string, token: string): MailMessage {
    const url = link(origin, "email-change/reject", token);
    return {
      to,
      subject: "Your e-mail address is being changed",
      text: `Someone asked to move your Countersign account to ${newEmail}. If this was not you, stop it here:\n\n${url}`,
      links: [url],
    };
  },
  invitation(origin: string, to: string, organization: string, role: string, token: string): MailMessage {
    const url = link(origin, "invitations/accept", token);
    return {
      to,
      subject: `You are invited to ${organization}`,
      text: `You are invited to join ${organization} on Countersign as ${role}:\n\n${url}`,
      links: [url],
    };
  },
  /**
   * An approval request waits for the recipient (api/src/approval-notices/): what it is about and
   * its link, never the call's arguments (they are shown only on the approval page, to approvers).
   */
  approvalWaiting(origin: string, to: string, r: ApprovalWaiting): MailMessage {
    const url = `${origin}/orgs/${encodeURIComponent(r.organizationId)}/approvals/${encodeURIComponent(r.approvalId)}`;
    const amount = r.amount === null ? "" : `\nAmount: ${r.amount}${r.currency ? ` ${r.currency}` : ""}`;
    return {
      to,
      subject: `Approval needed in ${r.organization}: ${r.agent} wants to call ${r.tool}`,
      text:
        `An approval request in ${r.organization} waits for your decision.\n\n` +
        `Agent: ${r.agent}\nTool: ${r.tool}${amount}\nExpires: ${r.expiresAt.toISOString()}\n\n` +
        `Review and decide it here:\n\n${url}\n\n` +
        "You get these e-mails because you may decide this request. Turn them off on your account page.",
      links: [url],
    };
  },
};

/** What an approval request's e-mail names. */
export interface ApprovalWaiting {
  organizationId: string;
  organization: string;
  approvalId: string;
  agent: string;
  tool: string;
  /** The amount as recorded (a decimal string), null for a call without one. */
  amount: string | null;
  currency: string | null;
  expiresAt: Date;
}
