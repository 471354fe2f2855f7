import type { Ed25519Verify } from "../ed25519.js";
import type { Disclosure } from "../bundle.js";
import type { IdentityDocument } from "../identity.js";
import type { IdentityState } from "../identity-log.js";
import type { Kid } from "../kid.js";
import type { BodyOf, SignedObject, StepBody } from "../signed-object.js";
import type { Findings } from "./result.js";

export interface VerifyOptions {
  /** The time reported as verified_at; it never decides validity (steps are judged at their own times). */
  now?: Date;
  /** Ed25519 verification; node:crypto on Node.js and the pure noble implementation elsewhere by default. */
  verify?: Ed25519Verify;
  /**
   * Identity documents the verifier knows from elsewhere (the Cloud API's
   * store, an earlier bundle): a bundle document that conflicts with one of
   * them is equivocation.
   */
  knownIdentities?: readonly unknown[];
  /** Pinned trust. Without it the bundle is checked for consistency only (warning TRUST_NOT_PINNED). */
  trust?: { issuers?: readonly Kid[]; principals?: readonly Kid[]; attesters?: readonly Kid[] };
}

/** What the checks share: the parsed bundle and what earlier checks established. */
export interface VerifyContext {
  findings: Findings;
  verify: Ed25519Verify;
  options: VerifyOptions;
  receipt: SignedObject<BodyOf<"RECEIPT">>;
  /** Well-formed objects of the bundle, in bundle order. */
  objects: SignedObject[];
  byId: Map<string, SignedObject>;
  /** Ids of the raw `objects` entries, in bundle order, including malformed ones when they have an id. */
  listedIds: string[];
  identityDocuments: IdentityDocument[];
  identities: Map<Kid, IdentityState>;
  disclosures: Disclosure[];
  /** Ids of objects whose signature, id and signer checked out. */
  authentic: Set<string>;
  /** TASK → head, when the chain could be followed. */
  path?: SignedObject<StepBody>[];
}

export const task = (ctx: VerifyContext) => ctx.path?.[0] as SignedObject<BodyOf<"TASK">> | undefined;

export function objectsOfType<T extends SignedObject["body"]["type"]>(ctx: VerifyContext, type: T) {
  return ctx.objects.filter((o): o is SignedObject<BodyOf<T>> => o.body.type === type);
}
