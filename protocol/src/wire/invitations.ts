import { z } from "zod";
import { emailSchema, tokenSchema } from "./accounts.js";
import { roleSchema } from "./members.js";
import { pageSchema } from "./pages.js";

/** An open invitation: GET .../invitations items, `{invitation}` of POST. */
export const invitationSchema = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  role: roleSchema,
  invited_by: z.uuid().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type Invitation = z.infer<typeof invitationSchema>;
export const invitationListSchema = pageSchema(invitationSchema);
export const invitationAnswerSchema = z.strictObject({ invitation: invitationSchema });

/** POST .../invitations: an invitation lives 1 hour to 30 days. */
export const invitationCreateSchema = z.strictObject({
  email: emailSchema,
  role: roleSchema,
  expires_in_seconds: z.number().int().min(3600).max(2_592_000).optional(),
});

/** POST /invitations/accept and its answer. */
export const invitationAcceptSchema = z.strictObject({ token: tokenSchema });
export const invitationAcceptedSchema = z.strictObject({ organization_id: z.uuid(), role: roleSchema });
