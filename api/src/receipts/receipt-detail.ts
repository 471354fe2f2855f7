import { canonicalJson, sha256Digest } from "@countersign/protocol/canonical";
import {
  allowedParents,
  deriveSummary,
  type BodyOf,
  type IdentityDocument,
  type SignedObject,
  type StepBody,
  type VerificationResult,
} from "@countersign/protocol/evidence";
import type { ReceiptDetail } from "@countersign/protocol/wire";
import { receiptJson } from "./schemas.js";
import type { ReceiptRow } from "./store.js";

/** The workflow's identity: its id and a digest of its step graph (which step may follow which). */
export const workflowDigest = sha256Digest(new TextEncoder().encode(canonicalJson(allowedParents)));

interface ParsedBundle {
  receipt: SignedObject<BodyOf<"RECEIPT">>;
  objects: SignedObject[];
  identities: IdentityDocument[];
}

/** The path TASK → head by parent links, as the bundle carries it (empty when it cannot be followed). */
export function pathOf(bundle: ParsedBundle): SignedObject<StepBody>[] {
  const byId = new Map<string, SignedObject>(bundle.objects.map((o) => [o.id, o]));
  const path: SignedObject<StepBody>[] = [];
  let id: string | null = bundle.receipt.body.payload.head;
  while (id && path.length <= bundle.objects.length) {
    const o = byId.get(id) as SignedObject<StepBody> | undefined;
    if (!o) return [];
    path.push(o);
    id = o.body.parent;
  }
  return path.reverse();
}

function orNull<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

/**
 * Receipt detail (SPEC 2.8): the summary record plus what the bundle says,
 * read from the bundle just vouched for (hash-checked) and judged by the
 * verification run on this request. The summary is derived from the signed
 * steps, never copied from the issuer's payload.
 */
export function receiptDetailJson(
  r: ReceiptRow,
  file: Buffer,
  verification: VerificationResult,
  verificationAtIssuance: unknown,
): ReceiptDetail {
  const bundle = JSON.parse(file.toString("utf8")) as ParsedBundle;
  const payload = bundle.receipt.body.payload;
  const path = pathOf(bundle);
  const resultStep = path.find((s) => s.body.type === "RESULT") as SignedObject<BodyOf<"RESULT">> | undefined;
  const latest = new Map<string, IdentityDocument>();
  const failedDelegationIds = new Set<string>();
  for (const d of bundle.identities)
    if ((latest.get(d.body.kid)?.body.seq ?? -1) < d.body.seq) latest.set(d.body.kid, d);
  const participantKids = [
    ...new Set(
      path
        .flatMap((s) => [s.body.actor, s.body.on_behalf_of])
        .concat(bundle.receipt.body.actor)
        .filter((k) => !!k) as string[],
    ),
  ];
  const revocations = bundle.objects.filter((o) => o.body.type === "REVOCATION") as SignedObject<
    BodyOf<"REVOCATION">
  >[];
  for (const e of verification.errors)
    if (e.check === "delegations" && e.object_id) failedDelegationIds.add(e.object_id);
  const failedDelegations = failedDelegationIds;
  const trusted = new Set(payload.trusted_attesters);
  // A delegation passed unless an error of the delegations check names it, or the check failed without naming any.
  const delegationCheck = verification.checks.find((c) => c.name === "delegations");
  const unnamedFailure = delegationCheck?.passed === false && failedDelegations.size === 0;
  const delegationPassed = (id: string) =>
    delegationCheck !== undefined && !unnamedFailure && !failedDelegations.has(id);

  return {
    ...receiptJson(r),
    workflow: { id: payload.workflow, digest: workflowDigest },
    outcome: payload.outcome,
    issuer_kid: bundle.receipt.body.actor,
    issued_at: bundle.receipt.body.issued_at,
    summary: orNull(() => deriveSummary(path)),
    result: resultStep
      ? {
          status: resultStep.body.payload.status,
          digest: resultStep.body.payload.result_digest,
          error_code: resultStep.body.payload.error_code,
        }
      : { status: null, digest: null, error_code: null },
    chain: path.map((s) => ({
      id: s.id,
      type: s.body.type,
      actor: s.body.actor,
      on_behalf_of: s.body.on_behalf_of,
      issued_at: s.body.issued_at,
    })),
    participants: participantKids.map((kid) => {
      const d = latest.get(kid);
      return {
        kid,
        actor_type: d?.body.actor_type ?? null,
        name: d?.body.subject.name ?? null,
        subject_id: d?.body.subject.id ?? null,
      };
    }),
    delegations: (
      bundle.objects.filter((o) => o.body.type === "DELEGATION") as SignedObject<BodyOf<"DELEGATION">>[]
    ).map((d) => {
      const rev = revocations.find((v) => v.body.payload.delegation === d.id);
      return {
        object_id: d.id,
        signed_by: d.body.actor,
        permissions: d.body.payload.permissions,
        expires_at: d.body.payload.expires_at,
        passed: delegationPassed(d.id),
        revocation: rev ? { object_id: rev.id, issued_at: rev.body.issued_at } : null,
      };
    }),
    attestations: (
      bundle.objects.filter((o) => o.body.type === "ATTESTATION") as SignedObject<BodyOf<"ATTESTATION">>[]
    ).map((a) => ({
      object_id: a.id,
      subject: a.body.payload.subject,
      claim: a.body.payload.claim,
      attester: a.body.actor,
      trusted: trusted.has(a.body.actor),
    })),
    trusted_attesters: payload.trusted_attesters,
    verification,
    verification_at_issuance: (verificationAtIssuance ?? null) as Record<string, unknown> | null,
  };
}
