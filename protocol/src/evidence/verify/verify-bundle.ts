import type { Kid } from "../kid.js";
import { defaultVerify } from "../sign.js";
import { checkAttestations, checkDisclosures, checkTrust } from "./check-extras.js";
import { checkChain } from "./check-chain.js";
import { checkFormat } from "./check-format.js";
import { checkIdentities } from "./check-identities.js";
import { checkOutcome, checkReceipt, checkSummary } from "./check-receipt.js";
import { checkSignatures } from "./check-signatures.js";
import { checkApprovals, checkCalls, checkDelegations } from "./check-steps.js";
import type { VerifyContext, VerifyOptions } from "./context.js";
import { Findings, type VerificationResult } from "./result.js";

/**
 * Verifies a bundle (SPEC 2.8) offline: no database, no network, only the
 * bytes given. Never throws for bad input: every problem is a named error in
 * the result, and `valid` is true only when every check ran and passed and
 * no identity equivocated.
 */
export function verifyBundle(input: unknown, options: VerifyOptions = {}): VerificationResult {
  const findings = new Findings();
  const now = options.now ?? new Date();
  const parsed = checkFormat(input, findings);
  if (!parsed) return findings.finish(now);
  const verify = options.verify ?? defaultVerify;
  const identities = checkIdentities(
    findings,
    parsed.identityDocuments,
    options.knownIdentities ?? [],
    parsed.receipt,
    verify,
  );
  const ctx: VerifyContext = {
    findings,
    verify,
    options,
    receipt: parsed.receipt,
    objects: parsed.objects,
    byId: new Map(parsed.objects.map((o) => [o.id, o])),
    listedIds: parsed.listedIds,
    identityDocuments: parsed.identityDocuments,
    identities,
    disclosures: parsed.disclosures,
    authentic: new Set(),
  };
  checkSignatures(ctx);
  checkChain(ctx);
  checkCalls(ctx);
  checkDelegations(ctx);
  checkApprovals(ctx);
  checkReceipt(ctx);
  checkSummary(ctx);
  checkOutcome(ctx);
  checkAttestations(ctx);
  checkDisclosures(ctx);
  checkTrust(ctx);
  noteLimits(ctx);
  return findings.finish(now);
}

// What a valid receipt does not prove (SPEC 2.8, limits of receipt meaning).
function noteLimits(ctx: VerifyContext): void {
  ctx.findings.note("times such as issued_at are written by their signers");
  ctx.findings.note("revocations unknown to the issuer when the bundle was made cannot appear in it");
  if (ctx.path?.some((s) => s.body.type === "APPROVAL")) {
    ctx.findings.note(
      "whether an approver held a required role is decided by the service, not provable offline",
    );
  }
}

export type { Kid, VerifyOptions };
