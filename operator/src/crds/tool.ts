// Tool: a tool of an MCP server or a decision-only tool declared by operation name (SPEC 2.3).
import { z } from "zod";
import { cloudIdOf, localObjectReference, statusBase } from "./fields.js";

const toolName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\p{Cc}\p{Zl}\p{Zp}\s]+$/u, "no whitespace or control characters");

export const toolSpec = z.object({
  mcpServerRef: localObjectReference.meta({
    description: "MCPServer (or decision-only integration) the tool belongs to.",
  }),
  exposedName: toolName.meta({
    description: "Name agents call; unique within the organization, 1 to 128 chars.",
  }),
  upstreamName: toolName.optional().meta({
    description:
      "Tool name at the upstream server, or the operation name of a decision-only tool; defaults to exposedName.",
  }),
  action: z.string().min(1).max(200).meta({ description: "Action name policies and delegations match." }),
  inputSchema: z.looseObject({}).optional().meta({
    description: "MCP object schema of the arguments (at most 64 KiB). Optional for decision-only tools.",
    "x-kubernetes-preserve-unknown-fields": true,
  }),
  amount: z
    .object({
      path: z.string().min(1).max(512).meta({ description: "Argument path holding the amount." }),
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .optional()
        .meta({ description: "Fixed ISO 4217 currency." }),
      currencyPath: z
        .string()
        .min(1)
        .max(512)
        .optional()
        .meta({ description: "Argument path holding the currency." }),
    })
    .optional()
    .meta({
      description: "Amount mapping: where the amount of a call is read from.",
      "x-kubernetes-validations": [
        {
          rule: "has(self.currency) != has(self.currencyPath)",
          message: "give exactly one of currency and currencyPath",
        },
      ],
    }),
  enabled: z
    .boolean()
    .default(true)
    .meta({ description: "Enabled tools are authorized for use; false keeps a disabled draft." }),
});

export const toolStatus = z.object({
  ...statusBase,
  toolId: cloudIdOf("the tool").optional(),
  mcpServerId: cloudIdOf("the MCP server the tool belongs to").optional(),
  enabled: z.boolean().optional().meta({ description: "Whether the tool is enabled in the Cloud API." }),
});

export type ToolSpec = z.infer<typeof toolSpec>;
export type ToolStatus = z.infer<typeof toolStatus>;
