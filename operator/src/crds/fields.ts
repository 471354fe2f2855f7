// Field schemas shared by every countersign.dev kind. They are the one typed source: the operator
// parses objects with them and `to-openapi.ts` turns them into the CRDs' OpenAPI v3 schemas, so a
// limit written here is enforced by the apiserver and known to the reconcilers alike.
import { z } from "zod";

/** Names of agents, MCP servers, policies (SPEC 8.3): 1-200 chars, one line, no control characters. */
export const displayName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line without control characters");

/** A Kubernetes object name in the same namespace (DNS-1123 subdomain). */
export const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);

/** A key inside a Secret's data. */
export const secretKey = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/);

export const localObjectReference = z.object({
  name: objectName.meta({ description: "Name of the object (metadata.name) in the same namespace." }),
});

export const secretKeySelector = z.object({
  name: objectName.meta({ description: "Secret in the same namespace." }),
  key: secretKey.meta({ description: "Key inside the Secret's data." }),
});

/** RFC 3339 time as Kubernetes writes it. The apiserver checks the format. */
export const timestamp = z.string().max(64).meta({ format: "date-time" });

/** A Cloud API id (UUID). */
export const cloudId = z.string().max(64);

/** A Cloud API id the operator records in status, described by what it identifies. */
export const cloudIdOf = (what: string) => cloudId.meta({ description: `Cloud API id of ${what}.` });

/** A policy version number (SPEC 2.4). */
export const versionNumber = z.int().min(1).max(1_000_000);

/** metav1.Condition, as every Kubernetes user reads it. */
export const condition = z.object({
  type: z
    .string()
    .min(1)
    .max(316)
    .regex(
      /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/,
    )
    .meta({ description: "Condition type: Ready, Reconciled, or one of the kind's own (docs/crds.md)." }),
  status: z.enum(["True", "False", "Unknown"]).meta({
    description: "True, False, or Unknown (not evaluated for the current generation).",
  }),
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .meta({ description: "metadata.generation this condition was evaluated for." }),
  lastTransitionTime: timestamp.meta({ description: "When status last changed." }),
  reason: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
    .meta({ description: "CamelCase reason a program can match, e.g. CloudAPIUnavailable." }),
  message: z.string().max(32768).meta({ description: "What was found, for people; never a secret." }),
});
export type Condition = z.infer<typeof condition>;

export const conditions = z
  .array(condition)
  .max(32)
  .meta({
    description: "Latest observations, one per type (metav1.Condition).",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
  });

/** The part every status shares: what generation was last acted on, and the conditions. */
export const statusBase = {
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .meta({ description: "metadata.generation the operator last acted on." }),
  conditions: conditions.optional(),
};
