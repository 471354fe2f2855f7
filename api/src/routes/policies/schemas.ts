import { z } from "zod";
import { nameSchema } from "../../http/shared.js";

/** Request shapes shared by the policy routes (SPEC 4.5). */
export const policyParams = z.strictObject({ org_id: z.uuid(), policy_id: z.uuid() });
export const versionParams = z.strictObject({ org_id: z.uuid(), policy_id: z.uuid(), version_id: z.uuid() });

/** A note on a version or an activation: one paragraph of text. */
export const noteSchema = z.string().min(1).max(2000);
export const disclosureSchema = z.enum(["inherit", "none", "rule", "conditions"]);
/** A document is validated by the policy engine, which reports every issue at once. */
export const documentInput = z.record(z.string(), z.unknown());

export const createPolicyBody = z.strictObject({
  name: nameSchema,
  document: documentInput.optional(),
  note: noteSchema.optional(),
  agent_disclosure: disclosureSchema.optional(),
});

export const fromTemplateBody = z.strictObject({
  template_id: z.string().min(1).max(200),
  name: nameSchema,
  note: noteSchema.optional(),
});

export const versionBody = z.union([
  z.strictObject({ document: documentInput, note: noteSchema.optional() }),
  z.strictObject({ require_approval_copy_of: z.uuid(), note: noteSchema.optional() }),
]);

/** A body that may be left out entirely (POST without content): read as `{}`. */
export const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? {}, schema);

export const activateBody = optionalBody(
  z.strictObject({
    expected_active_version_id: z.uuid().nullable().optional(),
    shadow_version_id: z.uuid().nullable().optional(),
    note: noteSchema.optional(),
    acknowledge_failing_examples: z.boolean().optional(),
    max_loosened: z.number().int().min(0).optional(),
    simulation_id: z.uuid().optional(),
  }),
);

export const rollbackBody = z.strictObject({
  expected_active_version_id: z.uuid().nullable(),
  to_version_id: z.uuid().optional(),
  note: noteSchema.optional(),
  open_actions: z.enum(["keep", "supersede_pending", "supersede_all"]).default("keep"),
});

const hypotheticalCall = z.strictObject({
  tool: z.string().min(1).max(128),
  action: z.string().min(1).max(1024),
  amount: z
    .string()
    .regex(/^-?\d{1,40}(\.\d{1,40})?$/, "a decimal as text")
    .optional(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

export const simulationBody = z.strictObject({
  candidate: z.union([z.strictObject({ version_id: z.uuid() }), z.strictObject({ document: documentInput })]),
  baseline: z
    .discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("active") }),
      z.strictObject({ kind: z.literal("recorded") }),
      z.strictObject({ kind: z.literal("none") }),
      z.strictObject({ kind: z.literal("version"), version_id: z.uuid() }),
    ])
    .default({ kind: "active" }),
  window_days: z.number().int().min(1).max(90).default(7),
  scope: z.enum(["agents", "policy"]).default("agents"),
  environment: z.enum(["all", "live", "test"]).default("all"),
  examples: z.boolean().optional(),
  decision_map: z.boolean().optional(),
  calls: z.array(hypotheticalCall).max(100).optional(),
});

export const reportQuery = z.strictObject({
  window_days: z.coerce.number().int().min(1).max(90).default(7),
  scope: z.enum(["agents", "policy"]).default("agents"),
  environment: z.enum(["all", "live", "test"]).default("all"),
});
