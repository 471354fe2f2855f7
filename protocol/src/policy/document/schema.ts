import { z } from "zod";

/**
 * The policy document, language revisions 1 and 2 (docs/policy-language.md).
 * Shapes only: the 8.3 limits, decimal syntax, paths, patterns and
 * cross-member rules are checked in validate.ts so each gets its own code.
 * Every object is strict: an unknown member is an error, never ignored.
 */

export const effects = ["allow", "require_approval", "deny"] as const;
export type Effect = (typeof effects)[number];

/** Who may approve: roles that hold approval rights in SPEC 4.3 ('Approvers'). */
export const approverRoles = ["owner", "admin", "approver"] as const;
export type ApproverRole = (typeof approverRoles)[number];

const effect = z.enum(effects);
const text = z.string();
/** JSON scalars an argument can equal: arguments hold only whole numbers. */
const scalar = z.union([z.string(), z.number().int(), z.boolean(), z.null()]);
const affix = z.union([text, z.array(text).min(1)]);
const currency = z.string().regex(/^[A-Z]{3}$/, "a currency is three capital letters (ISO 4217)");

export const approversSchema = z.strictObject({
  roles: z.array(z.enum(approverRoles)).min(1),
  count: z.number().int().min(1).optional(),
});
export type Approvers = z.infer<typeof approversSchema>;

const action = { field: z.literal("action") };
const actionCondition = z.discriminatedUnion("op", [
  z.strictObject({ ...action, op: z.literal("matches"), pattern: text }),
  z.strictObject({ ...action, op: z.literal("eq"), value: text }),
  z.strictObject({ ...action, op: z.literal("in"), value: z.array(text).min(1) }),
  z.strictObject({ ...action, op: z.literal("not_in"), value: z.array(text).min(1) }),
  z.strictObject({ ...action, op: z.literal("starts_with"), value: affix }),
  z.strictObject({ ...action, op: z.literal("ends_with"), value: affix }),
]);

const amount = { field: z.literal("amount"), currency };
const amountCondition = z.discriminatedUnion("op", [
  z.strictObject({ ...amount, op: z.literal("eq"), value: text }),
  z.strictObject({ ...amount, op: z.literal("gt"), threshold: text }),
  z.strictObject({ ...amount, op: z.literal("gte"), threshold: text }),
  z.strictObject({ ...amount, op: z.literal("lt"), threshold: text }),
  z.strictObject({ ...amount, op: z.literal("lte"), threshold: text }),
]);

const arg = { field: z.literal("arguments"), path: text };
const argumentCondition = z.discriminatedUnion("op", [
  z.strictObject({ ...arg, op: z.literal("eq"), value: scalar }),
  z.strictObject({ ...arg, op: z.literal("in"), value: z.array(scalar).min(1) }),
  z.strictObject({ ...arg, op: z.literal("not_in"), value: z.array(scalar).min(1) }),
  z.strictObject({ ...arg, op: z.literal("starts_with"), value: affix }),
  z.strictObject({ ...arg, op: z.literal("ends_with"), value: affix }),
  z.strictObject({ ...arg, op: z.literal("matches"), pattern: text }),
  z.strictObject({ ...arg, op: z.literal("gt"), threshold: text }),
  z.strictObject({ ...arg, op: z.literal("gte"), threshold: text }),
  z.strictObject({ ...arg, op: z.literal("lt"), threshold: text }),
  z.strictObject({ ...arg, op: z.literal("lte"), threshold: text }),
  z.strictObject({ ...arg, op: z.literal("exists"), value: z.boolean().optional() }),
]);

export const conditionSchema = z.discriminatedUnion("field", [
  actionCondition,
  amountCondition,
  argumentCondition,
]);
export type Condition = z.infer<typeof conditionSchema>;
export type ActionCondition = z.infer<typeof actionCondition>;
export type AmountCondition = z.infer<typeof amountCondition>;
export type ArgumentCondition = z.infer<typeof argumentCondition>;
export type ConditionOp = Condition["op"];

export const ruleSchema = z.strictObject({
  id: z.string(),
  effect,
  /** Exposed tool names (glob patterns); absent means every tool. */
  tools: z.array(text).min(1).optional(),
  /** All must hold (AND); absent or empty means the rule matches every call of its tools. */
  conditions: z.array(conditionSchema).optional(),
  approvers: approversSchema.optional(),
  approval_ttl_seconds: z.number().int().optional(),
  /** Revision 2: text for people and, at disclosure `rule`+, for the agent. */
  description: z.string().optional(),
  /** Revision 2: a guard is enforced even inside an observe window. */
  guard: z.boolean().optional(),
});
export type Rule = z.infer<typeof ruleSchema>;

export const documentSchema = z.strictObject({
  revision: z.union([z.literal(1), z.literal(2)]).optional(),
  default_effect: effect.optional(),
  default_approvers: approversSchema.optional(),
  default_approval_ttl_seconds: z.number().int().optional(),
  rules: z.array(ruleSchema),
});
export type PolicyDocument = z.infer<typeof documentSchema>;

export type LanguageRevision = 1 | 2;

/** Revision 2 is needed exactly when a rule carries `description` or `guard` (SPEC 3.4, 9). */
export function requiredRevision(doc: PolicyDocument): LanguageRevision {
  return doc.rules.some((r) => r.description !== undefined || r.guard !== undefined) ? 2 : 1;
}

/** The revision a version records: the declared one, else what its features need. */
export function languageRevision(doc: PolicyDocument): LanguageRevision {
  return doc.revision ?? requiredRevision(doc);
}

/** Used when a require_approval default names no approvers: the organization's admins. */
export const DEFAULT_APPROVERS: Readonly<{ roles: readonly ApproverRole[]; count: number }> = Object.freeze({
  roles: Object.freeze(["owner", "admin"] as ApproverRole[]),
  count: 1,
});
