import { z } from "zod";
import { pageSchema } from "./pages.js";

/** One audit log entry: who did what to what, never a secret. */
export const auditEntrySchema = z.strictObject({
  id: z.string(),
  action: z.string(),
  actor: z.strictObject({ type: z.string(), id: z.string().nullable(), label: z.string().nullable() }),
  target: z.strictObject({ type: z.string(), id: z.string().nullable() }).nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export const auditPageSchema = pageSchema(auditEntrySchema);
