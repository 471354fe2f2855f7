import { z } from "zod";
import { pageSchema } from "./pages.js";

/** The roles an operator can be bound with: any below owner. */
export const operatorRoles = ["admin", "approver", "developer", "viewer"] as const;

/** A Kubernetes ServiceAccount bound to the organization, as the cluster's TokenReview names it. */
export const operatorBindingSchema = z.strictObject({
  id: z.uuid(),
  username: z.string(),
  role: z.enum(operatorRoles),
  allow_admin_changes: z.boolean(),
  created_by: z.uuid().nullable(),
  created_at: z.string(),
});
export type OperatorBinding = z.infer<typeof operatorBindingSchema>;
export const operatorBindingListSchema = pageSchema(operatorBindingSchema);
export const operatorBindingAnswerSchema = z.strictObject({ binding: operatorBindingSchema });

/** POST .../operator-bindings. */
export const operatorBindingCreateSchema = z.strictObject({
  username: z
    .string()
    .max(300)
    .regex(
      /^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/,
      "system:serviceaccount:<namespace>:<name>",
    ),
  role: z.enum(operatorRoles),
  allow_admin_changes: z.boolean().default(false),
});
