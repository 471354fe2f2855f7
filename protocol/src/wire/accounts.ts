import { z } from "zod";
import { nameSchema } from "./names.js";

/** An e-mail address as the Cloud API reads it: compared and stored lowercased. */
export const emailSchema = z
  .email()
  .max(254)
  .transform((v) => v.toLowerCase());
/** A new password: 12 to 256 characters. */
export const passwordSchema = z.string().min(12).max(256);
/** A password checked against the stored one (any length up to the longest allowed). */
export const currentPasswordSchema = z.string().max(256);
/** The token of an e-mailed link or invitation. */
export const tokenSchema = z.string().min(1).max(200);

/** The account as the session and sign-in show it: never its password hash. */
export const userSchema = z.strictObject({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  email_verified: z.boolean(),
  /** Whether the person is e-mailed when an approval request waits for them (PATCH /me changes it). */
  approval_emails: z.boolean(),
});
export type User = z.infer<typeof userSchema>;
/** The answer of PATCH /me: the account as the session shows it. */
export const userAnswerSchema = z.strictObject({ user: userSchema });
/** PATCH /me: the person's own account preferences (docs/access.md). */
export const accountPreferencesSchema = z.strictObject({ approval_emails: z.boolean() });

/** The session: `{session}` of sign-in and GET /auth/session, with the csrf_token, never the session token. */
export const sessionSchema = z.strictObject({
  user: userSchema,
  csrf_token: z.string(),
  current_organization_id: z.uuid().nullable(),
  expires_at: z.string(),
  idle_expires_at: z.string(),
});
export const sessionAnswerSchema = z.strictObject({ session: sessionSchema });
export type Session = z.infer<typeof sessionSchema>;

/** The 202 of the routes that never tell whether an address has an account. */
export const acceptedSchema = z.strictObject({ message: z.string() });

export const signupSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
  name: nameSchema.optional(),
});
export const signinSchema = z.strictObject({ email: emailSchema, password: currentPasswordSchema });
export const passwordChangeSchema = z.strictObject({
  current_password: currentPasswordSchema,
  new_password: passwordSchema,
});
export const tokenBodySchema = z.strictObject({ token: tokenSchema });
export const emailBodySchema = z.strictObject({ email: emailSchema });
export const emailVerifiedSchema = z.strictObject({ email_verified: z.literal(true) });

/** POST /me/email. */
export const emailChangeSchema = z.strictObject({ new_email: emailSchema, password: currentPasswordSchema });
/** POST /auth/email/change/approve: the link's token and the account's password. */
export const emailChangeApproveSchema = z.strictObject({
  token: tokenSchema,
  password: currentPasswordSchema,
});
export const emailChangedSchema = z.strictObject({ email: z.string(), email_verified: z.literal(true) });
export const emailChangeRejectedSchema = z.strictObject({ rejected: z.literal(true) });

export const passwordResetConfirmSchema = z.strictObject({
  token: tokenSchema,
  new_password: passwordSchema,
});

/** DELETE /me. */
export const accountDeletionSchema = z.strictObject({ current_password: currentPasswordSchema });

/** A 204 answer: no body at all. */
export const noContentSchema = z.undefined();
