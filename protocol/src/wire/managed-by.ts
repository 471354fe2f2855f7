import { z } from "zod";

/** The custom resource kinds whose Cloud API records the operator reconciles. */
export const managedKinds = ["Agent", "Policy", "Tool", "MCPServer", "WebhookEndpoint"] as const;
export type ManagedKind = (typeof managedKinds)[number];

// Kubernetes names: a namespace is a DNS label, an object name a DNS subdomain.
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/**
 * The Kubernetes custom resource that manages a Cloud API record: stored with the record when
 * a bound operator writes it, and answered as its `managed_by` (null when people manage it).
 */
export const managedBySchema = z.strictObject({
  kind: z.enum(managedKinds),
  namespace: z.string().max(63).regex(dnsLabel),
  name: z.string().max(253).regex(dnsSubdomain),
});
export type ManagedBy = z.infer<typeof managedBySchema>;

/** The request header a bound operator names the resource with: `<kind>/<namespace>/<name>`. */
export const MANAGED_BY_HEADER = "countersign-managed-by";

export const formatManagedBy = (m: ManagedBy): string => `${m.kind}/${m.namespace}/${m.name}`;

/** The header's value read back; undefined when it is not exactly `<kind>/<namespace>/<name>`. */
export function parseManagedBy(value: string): ManagedBy | undefined {
  const parts = value.split("/");
  if (parts.length !== 3) return undefined;
  const parsed = managedBySchema.safeParse({ kind: parts[0], namespace: parts[1], name: parts[2] });
  return parsed.success ? parsed.data : undefined;
}
