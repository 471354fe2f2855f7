import { z } from "zod";
import { kidSchema, objectIdSchema, protocolVersion, signatureSchema, timestampSchema } from "./fields.js";
import {
  approvalPayloadSchema,
  attestationPayloadSchema,
  cancellationPayloadSchema,
  delegationPayloadSchema,
  executionPayloadSchema,
  proposalPayloadSchema,
  rejectionPayloadSchema,
  resultPayloadSchema,
  revocationPayloadSchema,
  taskPayloadSchema,
} from "./payloads.js";
import { receiptPayloadSchema } from "./receipt-payload.js";

/**
 * A signed object is `{id, body, signature}`: the body is what is signed
 * (its RFC 8785 canonical UTF-8 bytes), the id is `ko_` + SHA-256 of the same
 * bytes. Common body members: who signed (actor), for whom (on_behalf_of),
 * where in a thread (thread = the TASK's id, parent = the step before), which
 * delegations the step relies on, when, and the type's payload.
 */

// The Gateway's steps act for the principal through a delegation; so must list one.
const relied = z.array(objectIdSchema).min(1).max(100);
const none = z.array(objectIdSchema).max(0);

const common = {
  protocol: z.literal(protocolVersion),
  actor: kidSchema,
  issued_at: timestampSchema,
};
const threadStep = { thread: objectIdSchema, parent: objectIdSchema };
const standalone = { on_behalf_of: z.null(), thread: z.null(), parent: z.null(), delegations: none };

export const taskBodySchema = z.strictObject({
  ...common,
  type: z.literal("TASK"),
  on_behalf_of: kidSchema,
  thread: z.null(),
  parent: z.null(),
  delegations: relied,
  payload: taskPayloadSchema,
});
export const proposalBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("PROPOSAL"),
  on_behalf_of: kidSchema,
  delegations: relied,
  payload: proposalPayloadSchema,
});
export const approvalBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("APPROVAL"),
  on_behalf_of: kidSchema,
  delegations: none,
  payload: approvalPayloadSchema,
});
export const rejectionBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("REJECTION"),
  on_behalf_of: kidSchema,
  delegations: none,
  payload: rejectionPayloadSchema,
});
export const cancellationBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("CANCELLATION"),
  on_behalf_of: z.null(),
  delegations: none,
  payload: cancellationPayloadSchema,
});
export const executionBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("EXECUTION"),
  on_behalf_of: kidSchema,
  delegations: relied,
  payload: executionPayloadSchema,
});
export const resultBodySchema = z.strictObject({
  ...common,
  ...threadStep,
  type: z.literal("RESULT"),
  on_behalf_of: kidSchema,
  delegations: none,
  payload: resultPayloadSchema,
});
export const receiptBodySchema = z.strictObject({
  ...common,
  ...standalone,
  type: z.literal("RECEIPT"),
  payload: receiptPayloadSchema,
});
export const delegationBodySchema = z.strictObject({
  ...common,
  ...standalone,
  type: z.literal("DELEGATION"),
  payload: delegationPayloadSchema,
});
export const revocationBodySchema = z.strictObject({
  ...common,
  ...standalone,
  type: z.literal("REVOCATION"),
  payload: revocationPayloadSchema,
});
export const attestationBodySchema = z.strictObject({
  ...common,
  ...standalone,
  type: z.literal("ATTESTATION"),
  payload: attestationPayloadSchema,
});

export const objectBodySchema = z.discriminatedUnion("type", [
  taskBodySchema,
  proposalBodySchema,
  approvalBodySchema,
  rejectionBodySchema,
  cancellationBodySchema,
  executionBodySchema,
  resultBodySchema,
  receiptBodySchema,
  delegationBodySchema,
  revocationBodySchema,
  attestationBodySchema,
]);

export type ObjectBody = z.infer<typeof objectBodySchema>;
export type ObjectType = ObjectBody["type"];
export type BodyOf<T extends ObjectType> = Extract<ObjectBody, { type: T }>;
export type PayloadOf<T extends ObjectType> = BodyOf<T>["payload"];

export const objectTypes = [
  "TASK",
  "PROPOSAL",
  "APPROVAL",
  "REJECTION",
  "CANCELLATION",
  "EXECUTION",
  "RESULT",
  "RECEIPT",
  "DELEGATION",
  "REVOCATION",
  "ATTESTATION",
] as const satisfies readonly ObjectType[];

/** Steps of a thread, the path a receipt covers. */
export const stepTypes = [
  "TASK",
  "PROPOSAL",
  "APPROVAL",
  "REJECTION",
  "CANCELLATION",
  "EXECUTION",
  "RESULT",
] as const;
export type StepType = (typeof stepTypes)[number];
export type StepBody = BodyOf<StepType>;
export const isStepBody = (body: ObjectBody): body is StepBody =>
  (stepTypes as readonly string[]).includes(body.type);

export const signedObjectSchema = z.strictObject({
  id: objectIdSchema,
  body: objectBodySchema,
  signature: signatureSchema,
});
export type SignedObject<B extends ObjectBody = ObjectBody> = {
  id: z.infer<typeof objectIdSchema>;
  body: B;
  signature: string;
};
