import { digestOf } from "../../canonical/index.js";
import { signerActorTypes } from "../actor-types.js";
import type { Kid } from "../kid.js";
import { isStepBody } from "../signed-object.js";
import { objectsOfType, task, type VerifyContext } from "./context.js";

/**
 * Check `attestations`: each names an object of the bundle; it counts as
 * trusted only when its signer is a trusted attester (named by the receipt or
 * pinned by the verifier), otherwise a warning says so. Each trusted attester
 * the receipt names must have a valid identity of a kind that may attest.
 */
export function checkAttestations(ctx: VerifyContext): void {
  const { findings } = ctx;
  findings.run("attestations");
  const named = ctx.receipt.body.payload.trusted_attesters;
  for (const kid of named) {
    const state = ctx.identities.get(kid);
    if (!state || state.equivocated || !signerActorTypes.ATTESTATION.includes(state.actorType)) {
      findings.error(
        "attestations",
        "TRUSTED_ATTESTER_INVALID",
        "a trusted attester has no valid attesting identity",
        { kid },
      );
    }
  }
  const trusted = new Set<Kid>([...named, ...(ctx.options.trust?.attesters ?? [])]);
  for (const a of objectsOfType(ctx, "ATTESTATION")) {
    const subject = a.body.payload.subject;
    if (!ctx.byId.has(subject) && subject !== ctx.receipt.id) {
      findings.error("attestations", "ATTESTATION_INVALID", "attestation of an object not in the bundle", {
        object_id: a.id,
      });
    } else if (!trusted.has(a.body.actor)) {
      findings.warn(
        "attestations",
        "ATTESTER_UNTRUSTED",
        `"${a.body.payload.claim}" by an attester that is not trusted`,
        {
          object_id: a.id,
          kid: a.body.actor,
        },
      );
    } else if (ctx.authentic.has(a.id)) {
      findings.note(`trusted attestation "${a.body.payload.claim}" of ${subject} by ${a.body.actor}`);
    }
  }
  checkExpectedAttestations(ctx, new Set(named));
}

/**
 * A service-aware upstream attests its result: when an EXECUTION names a
 * server the issuer vouches for, that server's authentic attestation of the
 * EXECUTION (or its RESULT) must be here, and one over a result must state
 * the RESULT's digest. Otherwise a warning: the RESULT is then the Gateway's
 * word alone, and its error code says why.
 */
function checkExpectedAttestations(ctx: VerifyContext, vouched: ReadonlySet<Kid>): void {
  const steps = ctx.path ?? [];
  const attestations = objectsOfType(ctx, "ATTESTATION");
  for (const e of steps) {
    if (e.body.type !== "EXECUTION") continue;
    const server = e.body.payload.server_kid;
    if (!server || !vouched.has(server)) continue;
    const result = steps.find((s) => s.body.type === "RESULT" && s.body.parent === e.id);
    const covered = attestations.some((a) => {
      if (a.body.actor !== server || !ctx.authentic.has(a.id)) return false;
      if (a.body.payload.subject !== e.id && a.body.payload.subject !== result?.id) return false;
      const stated = (a.body.payload.statement as { result_digest?: unknown } | null)?.result_digest;
      return (
        stated === undefined ||
        (result?.body.type === "RESULT" && stated === result.body.payload.result_digest)
      );
    });
    if (!covered) {
      ctx.findings.warn(
        "attestations",
        "ATTESTATION_MISSING",
        "no attestation by the MCP server the call went to covers its result",
        {
          object_id: e.id,
          kid: server,
        },
      );
    }
  }
}

/** Check `disclosures`: a revealed value must hash to the digest its object signed. */
export function checkDisclosures(ctx: VerifyContext): void {
  ctx.findings.run("disclosures");
  for (const d of ctx.disclosures) {
    const object = ctx.byId.get(d.object_id);
    const signed =
      d.field === "arguments" && object?.body.type === "TASK"
        ? object.body.payload.arguments_digest
        : d.field === "result" && object?.body.type === "RESULT"
          ? object.body.payload.result_digest
          : undefined;
    let actual: string | undefined;
    try {
      actual = digestOf(d.value);
    } catch {
      actual = undefined;
    }
    if (signed === undefined || actual !== signed) {
      ctx.findings.error(
        "disclosures",
        "DISCLOSURE_MISMATCH",
        `disclosed ${d.field} does not match the signed digest`,
        {
          object_id: d.object_id,
        },
      );
    }
  }
}

/**
 * Check `trust`: with pinned KIDs, the Gateway's statements and the
 * principal the TASK acts for must be among them. Without, the bundle vouches
 * for itself, which a warning makes explicit.
 */
export function checkTrust(ctx: VerifyContext): void {
  const { findings } = ctx;
  findings.run("trust");
  const issuers = ctx.options.trust?.issuers;
  const principals = ctx.options.trust?.principals;
  if (!issuers && !principals) {
    findings.warn(
      "trust",
      "TRUST_NOT_PINNED",
      "no trusted KIDs given: the signers are those the bundle names",
    );
    return;
  }
  if (issuers) {
    const gatewaySigned = [ctx.receipt, ...(ctx.path ?? [])].filter((o) =>
      signerActorTypes[o.body.type].includes("gateway"),
    );
    for (const o of gatewaySigned) {
      if (!issuers.includes(o.body.actor)) {
        findings.error(
          "trust",
          "ISSUER_UNTRUSTED",
          `${o.body.type} is signed by a KID that is not a trusted issuer`,
          {
            object_id: o.id,
            kid: o.body.actor,
          },
        );
      }
    }
  }
  const t = task(ctx);
  if (principals && t) {
    const granting = [t.body.on_behalf_of, ...objectsOfType(ctx, "DELEGATION").map((d) => d.body.actor)];
    for (const kid of new Set(granting)) {
      if (!principals.includes(kid))
        findings.error("trust", "ISSUER_UNTRUSTED", "the principal is not a trusted principal", { kid });
    }
  }
  if (ctx.path && !ctx.path.every((s) => isStepBody(s.body))) findings.note("path holds non-step objects");
}
