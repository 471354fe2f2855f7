import { z } from "zod";

/** Every Cloud API error answer: `{error: {code, message, details?}}` (codes: the errors catalog). */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
