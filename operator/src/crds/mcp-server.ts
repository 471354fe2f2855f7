// MCPServer: an upstream MCP server the Gateway calls, or a decision-only integration (the
// caller's own code, which has no URL, no credential and no server KID: SPEC 2.3).
import { z } from "zod";
import { cloudIdOf, displayName, secretKeySelector, statusBase } from "./fields.js";

export const mcpServerSpec = z
  .object({
    name: displayName.optional().meta({ description: "Name in the Cloud API; defaults to metadata.name." }),
    decisionOnly: z
      .boolean()
      .default(false)
      .meta({ description: "True for 'Your code (decision only)': the service never connects to it." }),
    url: z
      .string()
      .max(2048)
      .regex(/^https:\/\/[^\s]+$/, "an https URL")
      .optional()
      .meta({
        description: "Public https URL of the MCP server (Streamable HTTP). Required unless decisionOnly.",
      }),
    credentialSecretRef: secretKeySelector.optional().meta({
      description:
        "Secret key holding the Authorization header value sent upstream. Stored encrypted by the Cloud API.",
    }),
    serverKid: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "KID of the server's identity, when it signs." }),
  })
  .meta({
    "x-kubernetes-validations": [
      { rule: "self.decisionOnly || has(self.url)", message: "url is required unless decisionOnly is true" },
      {
        rule: "!self.decisionOnly || (!has(self.url) && !has(self.credentialSecretRef) && !has(self.serverKid))",
        message: "a decision-only integration has no url, credentialSecretRef or serverKid",
      },
    ],
  });

export const mcpServerStatus = z.object({
  ...statusBase,
  mcpServerId: cloudIdOf("the MCP server or decision-only integration").optional(),
  serverStatus: z.string().max(64).optional().meta({ description: "Status the Cloud API reports." }),
  credentialSecretVersion: z.string().max(64).optional().meta({
    description: "resourceVersion of the credential Secret last sent (never the credential itself).",
  }),
});

export type MCPServerSpec = z.infer<typeof mcpServerSpec>;
export type MCPServerStatus = z.infer<typeof mcpServerStatus>;
