/** Calls to upstream MCP servers (SPEC 2.3, 6.4, 8.3): shared by the Gateway's execution and the Cloud API's discovery. */
export { upstreamFetch, ByteBudget, type UpstreamFailure, type UpstreamFetchOptions } from "./fetch.js";
export { UpstreamEras, MODERN_REVISION, connectModern, speaksModern, type UpstreamEra } from "./era.js";
export { UpstreamSessions, defaultSessionLimits, type SessionLimits, type SessionOwner } from "./sessions.js";
export {
  callUpstreamTool,
  upstreamLimits,
  type UpstreamCall,
  type UpstreamOutcome,
  type UpstreamFailureCode,
} from "./call-tool.js";
