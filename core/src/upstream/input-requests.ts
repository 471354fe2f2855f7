import { AsyncLocalStorage } from "node:async_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** What an upstream MCP server may ask its client for while a tool call runs. */
export type InputRequest = "sampling/createMessage" | "elicitation/create";

/**
 * The input requests the upstream sent during the call being made: every
 * exchange the SDK makes for a call (and so the handlers of requests the
 * server sends on that call's response stream) runs in the call's async
 * context, so one persistent session serves concurrent calls, each with its
 * own record.
 */
export const inputAskedDuringCall = new AsyncLocalStorage<Set<InputRequest>>();

/**
 * The JSON-RPC error the Gateway answers such a request with. MCP names -1
 * for a sampling request the user did not allow; the message says why here:
 * the caller's POST is over before it could answer (docs/gateway.md,
 * "Requests from the upstream during a call").
 */
const REFUSED = -1;
const refusal = (method: InputRequest) =>
  new McpError(
    REFUSED,
    `the Countersign Gateway does not relay ${method} to its caller; this call is recorded failed (UPSTREAM_INPUT_REQUIRED)`,
  );

// The SDK client builds an Ajv instance for every Client it makes unless it is given one; the
// Gateway's clients validate no elicitation schema (they answer none), so one serves them all.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * The MCP client the Gateway speaks to an upstream with. It declares sampling
 * and elicitation so that a server wanting input during a call asks for it
 * (an SDK server checks the client's capabilities and would otherwise give up
 * on its own, answering a degraded result the Gateway could not tell from a
 * real one), then refuses every such request explicitly and records that it
 * was asked: the call's RESULT is then failed, never succeeded.
 */
export function upstreamClient(): Client {
  const client = new Client(
    { name: "countersign-gateway", version: "0.1.0" },
    { jsonSchemaValidator, capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    inputAskedDuringCall.getStore()?.add("sampling/createMessage");
    throw refusal("sampling/createMessage");
  });
  client.setRequestHandler(ElicitRequestSchema, () => {
    inputAskedDuringCall.getStore()?.add("elicitation/create");
    throw refusal("elicitation/create");
  });
  return client;
}
