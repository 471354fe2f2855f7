import { z } from "zod";
import { managedBySchema } from "./managed-by.js";
import { nameSchema } from "./names.js";
import { pageSchema } from "./pages.js";

export const agentStatuses = ["active", "disabled"] as const;
const agentStatus = z.enum(agentStatuses);

/** The agent record: GET .../agents items, `{agent}` of GET, POST and PATCH. */
export const agentSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  status: agentStatus,
  policy: z.strictObject({ id: z.uuid(), name: z.string().nullable() }).nullable(),
  created_at: z.string(),
  /** Added to every answer by api/src/kubernetes (docs/access.md, "Records managed by Kubernetes"). */
  managed_by: managedBySchema.nullable().optional(),
});
export type Agent = z.infer<typeof agentSchema>;

/** POST .../agents. */
export const agentCreateSchema = z.strictObject({
  name: nameSchema,
  status: agentStatus.default("active"),
  policy_id: z.uuid().nullable().default(null),
});
export type AgentInput = z.input<typeof agentCreateSchema>;

/** PATCH .../agents/<id>: any of the members. */
export const agentPatchSchema = z
  .strictObject({ name: nameSchema, status: agentStatus, policy_id: z.uuid().nullable() })
  .partial();
export type AgentPatch = z.infer<typeof agentPatchSchema>;

/** The answer of GET, POST and PATCH of one agent: `{agent}`. */
export const agentAnswerSchema = z.strictObject({ agent: agentSchema });

/** GET .../agents: a page of agents. */
export const agentListSchema = pageSchema(agentSchema);
