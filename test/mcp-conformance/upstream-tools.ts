/**
 * The tools the conformance suite's server scenarios call, written here from
 * what each scenario of the suite as shipped on npm describes and checks
 * (`@modelcontextprotocol/conformance` 0.1.16 and 0.2.0-alpha.12): the
 * content types, an error result, progress, log messages, sampling and
 * elicitation requests to the client, and a tool whose input schema uses JSON
 * Schema 2020-12. Resources, prompts and completion, which the Gateway does
 * not serve (docs/gateway.md, "Conformance"), are not here; neither are the
 * 2026-07-28 diagnostic tools (`test_missing_capability`, the
 * `input_required` ones), which need a server speaking 2026-07-28 to its
 * client, not the 2025 revision the Gateway calls this one in.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CallToolResult,
  type ElicitRequest,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { redPixelPng, silentWav } from "./media.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ConformanceTool {
  /** What tools/list says of it: name, description and input schema, as sent. */
  listing: Tool;
  run(args: Record<string, unknown>, extra: Extra): Promise<CallToolResult>;
}

const noArguments = { type: "object" as const, properties: {} };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const failure = (t: string): CallToolResult => ({ isError: true, content: [{ type: "text", text: t }] });
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Asks the client for input with elicitation/create and says what came back, or that it failed. */
async function elicit(extra: Extra, params: ElicitRequest["params"], done: string): Promise<CallToolResult> {
  try {
    const answer = await extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema);
    return text(`${done}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  } catch (err) {
    return failure(`Elicitation failed: ${messageOf(err)}`);
  }
}

/** The 2020-12 input schema the json-schema-2020-12 scenario looks for, keywords it checks included. */
const schema202012 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object" as const,
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

const tools: ConformanceTool[] = [
  {
    listing: {
      name: "test_simple_text",
      description: "Answers one text item",
      inputSchema: noArguments,
    },
    run: async () => text("This is a simple text response for testing."),
  },
  {
    listing: {
      name: "test_image_content",
      description: "Answers one PNG image",
      inputSchema: noArguments,
    },
    run: async () => ({ content: [{ type: "image", data: redPixelPng(), mimeType: "image/png" }] }),
  },
  {
    listing: {
      name: "test_audio_content",
      description: "Answers one WAV audio clip",
      inputSchema: noArguments,
    },
    run: async () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  },
  {
    listing: {
      name: "test_embedded_resource",
      description: "Answers one embedded text resource",
      inputSchema: noArguments,
    },
    run: async () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
  },
  {
    listing: {
      name: "test_multiple_content_types",
      description: "Answers text, an image and an embedded resource together",
      inputSchema: noArguments,
    },
    run: async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: redPixelPng(), mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  },
  {
    listing: {
      name: "test_error_handling",
      description: "Always fails, as a tool error result",
      inputSchema: noArguments,
    },
    run: async () => failure("This tool intentionally returns an error for testing"),
  },
  {
    listing: {
      name: "test_tool_with_progress",
      description: "Reports progress 0, 50 and 100 of 100 under the request's progress token",
      inputSchema: noArguments,
    },
    run: async (_args, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause(50);
        if (progressToken !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100 },
          });
      }
      return text(`Progress reported${progressToken === undefined ? " (no progress token given)" : ""}`);
    },
  },
  {
    listing: {
      name: "test_tool_with_logging",
      description: "Sends three info log messages while it runs",
      inputSchema: noArguments,
    },
    run: async (_args, extra) => {
      const messages = ["Tool execution started", "Tool processing data", "Tool execution completed"];
      for (const [i, data] of messages.entries()) {
        if (i > 0) await pause(50);
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
      }
      return text("Logging tool completed");
    },
  },
  {
    listing: {
      name: "test_sampling",
      description: "Asks the client's model to answer a prompt (sampling/createMessage)",
      inputSchema: {
        type: "object" as const,
        properties: { prompt: { type: "string" } },
        required: ["prompt"],
      },
    },
    run: async (args, extra) => {
      const prompt = z.string().parse(args.prompt);
      try {
        const answer = await extra.sendRequest(
          {
            method: "sampling/createMessage",
            params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 },
          },
          CreateMessageResultSchema,
        );
        const content = answer.content;
        return text(`LLM response: ${content.type === "text" ? content.text : JSON.stringify(content)}`);
      } catch (err) {
        return failure(`Sampling failed: ${messageOf(err)}`);
      }
    },
  },
  {
    listing: {
      name: "test_elicitation",
      description: "Asks the user for a username and an e-mail address (elicitation/create)",
      inputSchema: {
        type: "object" as const,
        properties: { message: { type: "string" } },
        required: ["message"],
      },
    },
    run: async (args, extra) =>
      elicit(
        extra,
        {
          message: z.string().parse(args.message),
          requestedSchema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
        },
        "User response",
      ),
  },
  {
    listing: {
      name: "test_elicitation_sep1034_defaults",
      description: "Asks the user for input whose fields all have defaults (SEP-1034)",
      inputSchema: noArguments,
    },
    run: async (_args, extra) =>
      elicit(
        extra,
        {
          message: "Please review the defaults",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", default: "John Doe" },
              age: { type: "integer", default: 30 },
              score: { type: "number", default: 95.5 },
              status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
              verified: { type: "boolean", default: true },
            },
          },
        },
        "Elicitation completed",
      ),
  },
  {
    listing: {
      name: "test_elicitation_sep1330_enums",
      description: "Asks the user to choose from each kind of enum (SEP-1330)",
      inputSchema: noArguments,
    },
    run: async (_args, extra) =>
      elicit(
        extra,
        {
          message: "Please choose",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                items: { type: "string", enum: ["option1", "option2", "option3"] },
              },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
          },
        },
        "Elicitation completed",
      ),
  },
  {
    listing: {
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: schema202012,
    },
    run: async (args) => text(`Received: ${JSON.stringify(args)}`),
  },
];

export const conformanceTools: ReadonlyMap<string, ConformanceTool> = new Map(
  tools.map((t) => [t.listing.name, t]),
);
