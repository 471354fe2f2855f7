export { authorizeAction, type AuthorizeActionOptions } from "./authorize-action.js";
export type { AuthorizeRequest } from "./request.js";
export type { Authorization, AuthorizeResult, DecisionStatus, Refusal } from "./result.js";
export * from "./errors.js";
