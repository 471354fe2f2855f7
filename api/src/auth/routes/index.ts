/** The account and session routes: sign-up, sign-in, the session, passwords and e-mail addresses. */
export { signupRoute } from "./signup.js";
export { signinRoute } from "./signin.js";
export { sessionRoutes } from "./session.js";
export { passwordRoute } from "./password.js";
export { emailVerificationRoutes } from "./email-verification.js";
export { emailChangeRoutes } from "./email-change.js";
export { passwordResetRoutes } from "./password-reset.js";
