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

/** One entry of `details.issues`: where and why, never the submitted value (SPEC 7.1). */
export const errorIssueSchema = z.looseObject({ path: z.string(), code: z.string(), message: z.string() });
export type ErrorIssue = z.infer<typeof errorIssueSchema>;
/** The `details` of an error that lists issues (VALIDATION_FAILED, POLICY_INVALID, ...). */
export const issuesDetailsSchema = z.looseObject({ issues: z.array(errorIssueSchema) });
