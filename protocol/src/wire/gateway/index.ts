/** The Gateway's wire (SPEC 4.1, 4.2, 7.3): POST /v1/authorize and the service's members of /mcp. */
export * from "./authorize.js";
export * from "./mcp.js";
export {
  observePolicySchema,
  agentExplanationSchema,
  type ObservePolicy,
  type AgentExplanationWire,
} from "./policy.js";
export { objectIdString, argumentsDigestString, gatewayInstant } from "./fields.js";
