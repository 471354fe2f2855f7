import { CloudApiError } from "@countersign/client/cloud";
import { issueSentence, issuesIn } from "./issue-sentences.js";

/**
 * Every failure the dashboard shows has a code: the Cloud API's (SPEC 7.1, 7.2) as the client's
 * CloudApiError carries it, the client's own (NETWORK_ERROR, ABORTED, HTTP_<status>, and
 * INVALID_ANSWER, which the dashboard reports as SPEC 7.4's INVALID_RESPONSE), or one found in the
 * browser (SESSION_CHANGED, CRYPTO_UNAVAILABLE, STORAGE_UNAVAILABLE, ...): a DashboardError. People
 * read the message; the code stays visible for support.
 */
export class DashboardError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DashboardError";
  }
}

const human: Record<string, string> = {
  NETWORK_ERROR: "The service could not be reached. Check your connection and try again.",
  ABORTED: "The request was stopped before it finished. Nothing more will happen unless you try again.",
  INVALID_RESPONSE:
    "The service answered with something the dashboard cannot read. Try again; if it persists, tell your administrator.",
  SESSION_CHANGED:
    "You signed in as someone else (or signed out) in another tab. Nothing was changed here; reload the page to continue as the account now signed in.",
  CRYPTO_UNAVAILABLE:
    "This browser cannot make or use Ed25519 keys here (it needs WebCrypto Ed25519 on a secure https page). Nothing was sent. Use a current browser over https.",
  STORAGE_UNAVAILABLE:
    "This browser does not let the dashboard keep keys (IndexedDB is off, for example in a private window). Nothing was sent.",
  UNAUTHENTICATED: "Your session ended. Sign in again.",
  INVALID_CREDENTIALS: "The e-mail address or password is not right, or the address is not verified yet.",
  CSRF_FAILED: "The request was refused as not coming from this dashboard. Reload the page and try again.",
  EMAIL_NOT_VERIFIED: "Verify your e-mail address first: follow the link we sent you.",
  INVALID_CURRENT_PASSWORD: "Your current password is not right.",
  INVALID_OR_EXPIRED_TOKEN:
    "This link is no longer valid: it was used, replaced or has expired. Ask for a new one.",
  EMAIL_TAKEN: "Another account uses this address. Sign in with it, or choose another address.",
  RATE_LIMITED: "Too many attempts. Wait a little and try again.",
  FORBIDDEN:
    "Your role does not allow this. Ask an owner or admin of the organization to do it or to change your role.",
  ADMIN_REQUIRED: "Only an owner or admin can do this.",
  OWNER_REQUIRED: "Only an owner can do this.",
  NOT_FOUND:
    "This does not exist, or you cannot see it. Check the address, or choose one of your organizations above.",
  ALREADY_DECIDED: "Someone already decided this request; it is no longer pending.",
  POLICY_VERSION_REPLACED:
    "The policy version this request was made under was replaced (a rollback or emergency stop), which closed the request. The agent must ask again.",
  EXPIRED: "This request has expired; the agent must ask again.",
  CANCELLED: "The organization cancelled this action; there is nothing left to decide or cancel.",
  REPLAY: "This signed decision was already recorded; nothing changed.",
  NO_PRINCIPAL: "This organization has no principal yet. An owner creates it under Principal.",
  IDENTITY_ALREADY_BOUND:
    "This key was bound before; a key once unbound is never bound again. Make a new key and bind that one.",
  INVITATION_INVALID: "This invitation does not exist or was withdrawn.",
  INVITATION_EXPIRED: "This invitation has expired. Ask for a new one.",
  INVITATION_EMAIL_MISMATCH:
    "This invitation is for another e-mail address. Sign in with the invited address.",
  ALREADY_MEMBER: "You are already a member of this organization.",
  NAME_TAKEN: "This name is already in use. Choose another one.",
  VERIFICATION_FAILED:
    "The signature did not verify: the key that signed is not the one expected (for delegations and cancellations, the organization's current principal). Check that this browser holds the current key (Principal page) and try again.",
  PLAN_LIMIT_EXCEEDED:
    "Your plan's limit is reached. Remove something no longer used, or an owner changes the plan under Plan and billing.",
  SERVICE_UNAVAILABLE: "The service is busy or restarting. Try again in a few seconds.",
  INTERNAL_ERROR: "Something went wrong on the server. Try again later.",
};

export interface Failure {
  code: string;
  message: string;
  /** The HTTP status, when an answer came. */
  status?: number;
  details?: Record<string, unknown>;
}

/** The code, status and details of a failure, whichever side found it; undefined for other errors. */
export function failureOf(err: unknown): Failure | undefined {
  if (err instanceof DashboardError) return err;
  if (err instanceof CloudApiError)
    return {
      code: err.code === "INVALID_ANSWER" ? "INVALID_RESPONSE" : err.code,
      message: err.message,
      status: err.status || undefined,
      details: err.details,
    };
  return undefined;
}

/** An id a refusal's details name (the version now active, the shadow now set), or null. */
export const idIn = (details: Record<string, unknown> | undefined, key: string): string | null => {
  const id = details?.[key];
  return typeof id === "string" ? id : null;
};

/** Whether the failure has this code (the API's or the browser's). */
export const hasCode = (err: unknown, code: string): boolean => failureOf(err)?.code === code;

/** The sentence a person reads for an error; the API's own message when no better one is known. */
export function messageOf(error: unknown): { code: string; text: string } {
  const err = failureOf(error);
  if (err) {
    if (err.code === "CONFLICT" && err.details?.reason === "TOO_MANY_IDENTITIES")
      return { code: err.code, text: "You already have 5 keys bound. Unbind one before adding another." };
    // VALIDATION_FAILED's details (api/src/http/issues.ts) name each field and what is wrong with it.
    const fields = err.code === "VALIDATION_FAILED" ? issuesIn(err.details) : [];
    if (fields.length)
      return {
        code: err.code,
        text: `${fields.map((i) => issueSentence(i)).join(" ")} Correct it and try again.`,
      };
    if (err.code === "URL_NOT_ALLOWED") {
      const reason = typeof err.details?.reason === "string" ? err.details.reason.replace(/_/g, " ") : null;
      return {
        code: err.code,
        text: `This URL is not allowed${reason ? ` (${reason})` : ""}. Use an https address on a public network; an address on this machine works only where the installation allows loopback, as make run does.`,
      };
    }
    const known = human[err.code];
    if (known) return { code: err.code, text: known };
    if (/^HTTP_\d+$/.test(err.code))
      return {
        code: err.code,
        text: `The service answered with an unexpected HTTP status ${err.status}. Try again later.`,
      };
    return { code: err.code, text: err.message };
  }
  return { code: "ERROR", text: error instanceof Error ? error.message : String(error) };
}

human.PRINCIPAL_KEY_MISSING =
  "This browser does not hold the organization principal's key. Restore it from the backup file on the Principal page; nothing was sent.";
human.IDENTITY_MISSING =
  "You have no signing key in this browser that this request accepts. Keys must be bound before a request is made; bind one under Your account for the next requests.";
