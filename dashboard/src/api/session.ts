/** Accounts and sessions (SPEC 4.1): sign-up, sign-in, the e-mail links, passwords. */
import {
  acceptedSchema,
  emailChangedSchema,
  emailChangeRejectedSchema,
  emailVerifiedSchema,
  noContentSchema,
  sessionAnswerSchema,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";

export const sessionApi = {
  current: () => cloud.request("GET", "/auth/session", sessionAnswerSchema),
  signIn: (email: string, password: string) =>
    cloud.request("POST", "/auth/signin", sessionAnswerSchema, { body: { email, password } }),
  signOut: () => cloud.request("POST", "/auth/signout", noContentSchema, { body: {} }),
  signUp: (email: string, password: string) =>
    cloud.request("POST", "/auth/signup", acceptedSchema, { body: { email, password } }),
  verifyEmail: (token: string) =>
    cloud.request("POST", "/auth/email/verify", emailVerifiedSchema, { body: { token } }),
  resendVerification: (email: string) =>
    cloud.request("POST", "/auth/email/resend", acceptedSchema, { body: { email } }),
  requestPasswordReset: (email: string) =>
    cloud.request("POST", "/auth/password-reset", acceptedSchema, { body: { email } }),
  confirmPasswordReset: (token: string, new_password: string) =>
    cloud.request("POST", "/auth/password-reset/confirm", noContentSchema, { body: { token, new_password } }),
  changePassword: (current_password: string, new_password: string) =>
    cloud.request("POST", "/auth/password", noContentSchema, { body: { current_password, new_password } }),
  changeEmail: (new_email: string, password: string) =>
    cloud.request("POST", "/me/email", acceptedSchema, { body: { new_email, password } }),
  approveEmailChange: (token: string, password: string) =>
    cloud.request("POST", "/auth/email/change/approve", emailChangedSchema, { body: { token, password } }),
  rejectEmailChange: (token: string) =>
    cloud.request("POST", "/auth/email/change/reject", emailChangeRejectedSchema, { body: { token } }),
};
