import { z } from "zod";
import { identityDocumentSchema } from "../evidence/index.js";

export const storedIdentityStatuses = ["active", "replaced", "revoked", "equivocated"] as const;

/** An identity as the Cloud API shows it: public material only (the private key never reaches the service). */
export const identitySchema = z.strictObject({
  kid: z.string(),
  status: z.enum(storedIdentityStatuses),
  public_key: z.string(),
  documents: z.array(identityDocumentSchema),
  created_at: z.string(),
  retired_at: z.string().nullable(),
});
export type Identity = z.infer<typeof identitySchema>;

/** The organization principal: an identity, and whether it may still sign. */
export const principalSchema = identitySchema.extend({ valid: z.boolean() });
export type PrincipalIdentity = z.infer<typeof principalSchema>;
/** GET .../principal: the current principal (null before one is registered) and every earlier one. */
export const principalStateSchema = z.strictObject({
  principal: principalSchema.nullable(),
  history: z.array(identitySchema),
});
const identityDocumentBody = z.record(z.string(), z.unknown());
/** POST .../principal: a signed identity document, with its predecessor's when it replaces one. */
export const principalSubmitSchema = z.strictObject({
  document: identityDocumentBody,
  predecessor: identityDocumentBody.optional(),
});
export const principalOutcomes = ["created", "replaced", "updated", "unchanged"] as const;
export const principalSubmittedSchema = z.strictObject({
  principal: principalSchema,
  outcome: z.enum(principalOutcomes),
});

/** POST /me/identity-challenges: what the key must sign to bind. */
export const identityChallengeAnswerSchema = z.strictObject({
  challenge: z.strictObject({ id: z.uuid(), challenge: z.string(), expires_at: z.string() }),
});
/** POST /me/identities. */
export const identityBindSchema = z.strictObject({
  challenge_id: z.uuid(),
  signature: z.string().min(1).max(200),
  document: identityDocumentBody,
});
/** GET /me/identities: every personal identity of the caller, in one list. */
export const identityListSchema = z.strictObject({ items: z.array(identitySchema) });
export const identityAnswerSchema = z.strictObject({ identity: identitySchema });

/** GET /gateway/identity: the Gateway's current public identity document. */
export const gatewayIdentityAnswerSchema = z.strictObject({
  identity: z.strictObject({
    kid: z.string(),
    public_key: z.string(),
    document: identityDocumentSchema,
    created_at: z.string(),
  }),
});
