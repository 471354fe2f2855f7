// Agent: an agent, its policy, its delegations (signed by the operator with the organization
// principal's key) and its gateway key, written to a Secret the agent's pod mounts.
import { z } from "zod";
import { cloudId, displayName, localObjectReference, objectName, statusBase, timestamp } from "./fields.js";

/** Annotation whose new value asks the operator to rotate the gateway key. */
export const rotateGatewayKeyAnnotation = "countersign.dev/rotate-gateway-key";

export const delegation = z.object({
  name: objectName.max(63).meta({ description: "Stable name of this delegation within the agent." }),
  actions: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(256)
    .meta({ description: "Actions granted (names or glob patterns as in policies)." }),
  expiresAt: timestamp.meta({ description: "When the delegation stops granting anything (RFC 3339)." }),
});

export const agentSpec = z.object({
  name: displayName
    .optional()
    .meta({ description: "Agent name in the Cloud API; defaults to metadata.name." }),
  disabled: z.boolean().default(false).meta({ description: "A disabled agent's gateway keys stop working." }),
  policyRef: localObjectReference
    .optional()
    .meta({ description: "Policy in this namespace that decides the agent's calls." }),
  delegations: z
    .array(delegation)
    .max(100)
    .default([])
    .meta({
      description:
        "Delegations to keep active (at most 100 per agent, SPEC 8.5). A removed entry is revoked.",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    }),
  gatewayKey: z
    .object({
      secretName: objectName.meta({
        description: `Secret (same namespace) the operator writes the gateway key into, under key "api-key". Set annotation ${rotateGatewayKeyAnnotation} to a new value to rotate it.`,
      }),
      environment: z.enum(["live", "test"]).default("live"),
    })
    .optional()
    .meta({ description: "Gateway key to create for the agent. Removing it revokes the key." }),
});

export const agentStatus = z.object({
  ...statusBase,
  agentId: cloudId.optional(),
  policyId: cloudId.optional(),
  gatewayKey: z
    .object({
      id: cloudId,
      prefix: z.string().max(32),
      secretName: objectName,
      environment: z.enum(["live", "test"]).optional(),
      rotation: z
        .string()
        .max(253)
        .optional()
        .meta({ description: "Value of the rotation annotation last acted on." }),
    })
    .optional()
    .meta({ description: "The key record only; the key itself is in the Secret." }),
  delegations: z
    .array(z.object({ name: objectName, id: cloudId, expiresAt: timestamp }))
    .max(100)
    .optional(),
});

export type AgentSpec = z.infer<typeof agentSpec>;
export type AgentStatus = z.infer<typeof agentStatus>;
