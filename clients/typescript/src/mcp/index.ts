export {
  connectGateway,
  GatewayClient,
  MAX_TOOL_PAGES,
  type GatewayClientOptions,
  type ToolCall,
} from "./gateway-client.js";
export type { CompletedCall, ToolCallOutcome, ToolRefusal, ToolRefusalStatus } from "./tool-result.js";
