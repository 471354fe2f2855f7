// Agent: an agent, its policy, its delegations (signed by the operator with the organization
// principal's key) and its gateway key, written to a Secret the agent's pod mounts.
import { z } from "zod";
import { cloudIdOf, displayName, localObjectReference, objectName, statusBase, timestamp } from "./fields.js";

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
      environment: z
        .enum(["live", "test"])
        .default("live")
        .meta({ description: "Environment of the key: live or test (test keys never reach upstreams)." }),
    })
    .optional()
    .meta({ description: "Gateway key to create for the agent. Removing it revokes the key." }),
});

export const agentStatus = z.object({
  ...statusBase,
  agentId: cloudIdOf("the agent").optional(),
  policyId: cloudIdOf("the policy assigned to the agent").optional(),
  gatewayKey: z
    .object({
      id: cloudIdOf("the gateway key"),
      prefix: z.string().max(32).meta({ description: "The key's public prefix, as the dashboard shows it." }),
      secretName: objectName.meta({ description: "Secret the key was written to." }),
      environment: z.enum(["live", "test"]).optional().meta({ description: "Environment of the key." }),
      rotation: z
        .string()
        .max(253)
        .optional()
        .meta({ description: "Value of the rotation annotation last acted on." }),
    })
    .optional()
    .meta({ description: "The key record only; the key itself is in the Secret." }),
  delegations: z
    .array(
      z.object({
        name: objectName.meta({ description: "The entry of spec.delegations." }),
        id: cloudIdOf("the active delegation"),
        expiresAt: timestamp.meta({ description: "When it expires." }),
      }),
    )
    .max(100)
    .optional()
    .meta({ description: "The active delegation of each spec.delegations entry." }),
});

export type AgentSpec = z.infer<typeof agentSpec>;
export type AgentStatus = z.infer<typeof agentStatus>;
