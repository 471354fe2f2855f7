import { z } from "zod";
import { pageSchema } from "./pages.js";

export const roles = ["owner", "admin", "approver", "developer", "viewer"] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

/** A member of an organization: GET .../members items. */
export const memberSchema = z.strictObject({
  user_id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: roleSchema,
  joined_at: z.string(),
});
export type Member = z.infer<typeof memberSchema>;
/** Every member at once, no further page. */
export const memberListSchema = pageSchema(memberSchema);

/** PATCH .../members/<user_id>. */
export const memberPatchSchema = z.strictObject({ role: roleSchema });
export const memberAnswerSchema = z.strictObject({
  member: z.strictObject({ user_id: z.uuid(), role: roleSchema }),
});
