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
};
