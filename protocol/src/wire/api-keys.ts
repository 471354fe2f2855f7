import { z } from "zod";
import { nameSchema } from "./names.js";
import { pageSchema } from "./pages.js";
import { instantSchema } from "./instants.js";

/** Management-key scopes. */
export const scopes = [
  "read",
  "approvals:read",
  "receipts:read",
  "agents:write",
  "tools:write",
  "policies:write",
] as const;
export type Scope = (typeof scopes)[number];

export const apiKeyKinds = ["gateway", "management"] as const;
export const apiKeyEnvironments = ["live", "test"] as const;
export const apiKeyStates = ["active", "expired", "revoked"] as const;

/** The key record: never the secret, nor its hash. */
export const apiKeySchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(apiKeyKinds),
  environment: z.enum(apiKeyEnvironments),
  prefix: z.string(),
  agent_id: z.uuid().nullable(),
  scopes: z.array(z.string()),
  state: z.enum(apiKeyStates),
  created_by: z.uuid().nullable(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  revoked_reason: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;
export const apiKeyListSchema = pageSchema(apiKeySchema);
export const apiKeyAnswerSchema = z.strictObject({ api_key: apiKeySchema });
/** The 201 of POST .../api-keys: the only time the full key leaves the service. */
export const apiKeyCreatedSchema = z.strictObject({ api_key: apiKeySchema, secret: z.string() });

const common = {
  name: nameSchema,
  environment: z.enum(apiKeyEnvironments).default("live"),
  expires_at: instantSchema.optional(),
};
/** POST .../api-keys: a gateway key for one agent, or a management key with scopes. */
export const apiKeyCreateSchema = z.discriminatedUnion("kind", [
  z.strictObject({ ...common, kind: z.literal("gateway"), agent_id: z.uuid() }),
  z.strictObject({
    ...common,
    kind: z.literal("management"),
    scopes: z
      .array(z.enum(scopes))
      .min(1)
      .refine((s) => new Set(s).size === s.length, "no duplicates"),
  }),
]);
export type ApiKeyInput = z.input<typeof apiKeyCreateSchema>;
