/**
 * The Cloud API rate limits of SPEC 8.1 and the per-recipient e-mail budgets,
 * as data: a limit counts requests per subject in a window that starts at the subject's first counted request.
 */
export interface Limit {
  limit: number;
  windowSeconds: number;
}

const perMinute = (n: number): Limit => ({ limit: n, windowSeconds: 60 });
const per15Min = (n: number): Limit => ({ limit: n, windowSeconds: 900 });
const perHour = (n: number): Limit => ({ limit: n, windowSeconds: 3600 });

export const limits = {
  perIp: perMinute(1200),
  perCredential: perMinute(600),
  signinPerIp: per15Min(30),
  signinPerEmailAndIp: per15Min(10),
  signinPerEmail: per15Min(50),
  signinPerIpv6Net48: per15Min(150),
  signupPerIp: perHour(10),
  signupPerEmail: perHour(5),
  signupPerIpv6Net48: perHour(50),
  passwordChangePerUser: per15Min(10),
  resendPerEmailMinute: perMinute(1),
  resendPerIp: perHour(20),
  resendPerEmailHour: perHour(5),
  verifyPerIp: per15Min(60),
  emailChangeLinkPerIp: per15Min(60),
  emailChangePerUser: perHour(10),
  resetPerIp: perHour(20),
  resetPerEmailAndIp: perHour(5),
  resetConfirmPerIp: per15Min(30),
  invitationsPerUser: perHour(20),
  invitationsPerOrganization: perHour(50),
  acceptPerUser: per15Min(20),
  // Simulations, shadow reports, decision maps, diffs, observe window reports: per organization,
  // read-only callers (viewers, approvers, keys without a write scope) at most 5 of the 10.
  analysisPerOrganization: perMinute(10),
  analysisReadOnlyPerOrganization: perMinute(5),
  // Dry runs (SPEC 8.1): per credential and per organization.
  dryRunPerCredential: perMinute(60),
  dryRunPerOrganization: perMinute(600),
  // Webhook test events and redeliveries together, per endpoint.
  webhookSendsPerEndpoint: perMinute(5),
  // Per recipient address: over budget, the request gets its normal answer but nothing is sent.
  accountMailPerRecipient: perHour(10),
  resetMailPerRecipient: perHour(5),
  securityNoticePerRecipient: perHour(10),
  // Not in SPEC 8.1: e-mails about approval requests waiting for the recipient (docs/dashboard.md).
  approvalNoticePerRecipient: perHour(30),
} as const satisfies Record<string, Limit>;

export type LimitName = keyof typeof limits;
