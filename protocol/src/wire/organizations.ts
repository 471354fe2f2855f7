import { z } from "zod";
import { roleSchema } from "./members.js";
import { nameSchema } from "./names.js";
import { pageSchema } from "./pages.js";

export const planNames = ["developer", "startup", "growth", "scale", "enterprise"] as const;
export const agentDisclosures = ["none", "rule", "conditions"] as const;

/** The organization record, with the caller's role and the retention periods in effect. */
export const organizationSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  created_at: z.string(),
  plan: z.enum(planNames),
  /** The caller's role in it; null for a caller that is no member (a management key). */
  role: roleSchema.nullable(),
  approval_ttl_seconds: z.number().int(),
  observe_max_hours: z.number().int(),
  observe_live_opt_in: z.boolean(),
  agent_disclosure: z.enum(agentDisclosures),
  data_retention_days: z.number().int().nullable(),
  data_retention: z.strictObject({
    plan_days: z.number().int().nullable(),
    organization_days: z.number().int().nullable(),
    effective_days: z.number().int().nullable(),
  }),
});
export type Organization = z.infer<typeof organizationSchema>;
export const organizationAnswerSchema = z.strictObject({ organization: organizationSchema });
/** GET /orgs: every organization of the caller, no further page. */
export const organizationListSchema = pageSchema(organizationSchema);

export const slugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, "lowercase letters, digits and inner hyphens, at most 63");
/** POST /orgs. */
export const organizationCreateSchema = z.strictObject({ name: nameSchema, slug: slugSchema.optional() });

/** PATCH /orgs/<org_id>: the organization settings. */
export const organizationSettingsSchema = z
  .strictObject({
    name: nameSchema,
    approval_ttl_seconds: z.number().int().min(60).max(2_592_000),
    observe_max_hours: z.number().int().min(0).max(168),
    observe_live_opt_in: z.boolean(),
    agent_disclosure: z.enum(agentDisclosures),
    data_retention_days: z.number().int().min(1).max(3650).nullable(),
  })
  .partial();
export type OrganizationSettings = z.infer<typeof organizationSettingsSchema>;

/** POST /orgs/<org_id>/switch. */
export const organizationSwitchSchema = z.strictObject({ current_organization_id: z.uuid() });
