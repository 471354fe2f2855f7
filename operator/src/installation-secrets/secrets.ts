// The installation's secrets (the key hash secret, the Gateway signing key, the credential key, a
// trial database's password), made once by the chart's hook Job instead of by the template, so
// `helm template` renders the same output every time and a GitOps renderer without `lookup`
// never replaces them. A key already present is never changed: losing the key hash secret would
// lock out every API key, losing the credential key would make stored credentials unreadable.
import { randomBytes } from "node:crypto";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import { fieldManager } from "../kube/custom-objects.js";

export const installationSecret = z.strictObject({
  name: z.string().min(1).max(253),
  /** Keys holding 32 random bytes, base64url without padding. */
  random: z.array(z.string().min(1)).default([]),
  /** Keys holding 32 random letters and digits (a password other programs quote unescaped). */
  alphanumeric: z.array(z.string().min(1)).default([]),
  /** Keys built from others: `{KEY}` is replaced by that key's value. */
  derived: z.record(z.string(), z.string()).default({}),
});
export type InstallationSecret = z.infer<typeof installationSecret>;

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function alphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    // Rejection sampling: bytes at or above 248 (4 * 62) would bias the first letters.
    for (const byte of randomBytes(length)) if (byte < 248 && out.length < length) out += alphabet[byte % 62];
  }
  return out;
}

/** The values to add: only keys that are missing; derived keys from the values in force. */
export function missingValues(
  wanted: InstallationSecret,
  present: Record<string, string>,
): Record<string, string> {
  const added: Record<string, string> = {};
  for (const key of wanted.random) if (!(key in present)) added[key] = randomBytes(32).toString("base64url");
  for (const key of wanted.alphanumeric) if (!(key in present)) added[key] = alphanumeric(32);
  const values = { ...present, ...added };
  for (const [key, template] of Object.entries(wanted.derived)) {
    if (key in present) continue;
    added[key] = template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined)
        throw new Error(`${wanted.name}: ${key} names ${name}, which is not a key of the Secret`);
      return value;
    });
  }
  return added;
}

/** Creates the Secret, or adds its missing keys; returns the keys added (never their values). */
export async function ensureInstallationSecret(
  kubeConfig: KubeConfig,
  namespace: string,
  wanted: InstallationSecret,
  labels: Record<string, string>,
): Promise<string[]> {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  let existing;
  try {
    existing = await api.readNamespacedSecret({ name: wanted.name, namespace });
  } catch (error) {
    if ((error as { code?: number }).code !== 404) throw error;
  }
  const present = Object.fromEntries(
    Object.entries(existing?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );
  const added = missingValues(wanted, present);
  const keys = Object.keys(added);
  if (!existing) {
    await api.createNamespacedSecret({
      namespace,
      fieldManager,
      body: {
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: { name: wanted.name, namespace, labels },
        stringData: added,
      },
    });
  } else if (keys.length > 0) {
    await api.replaceNamespacedSecret({
      name: wanted.name,
      namespace,
      fieldManager,
      body: {
        ...existing,
        data: {
          ...existing.data,
          ...Object.fromEntries(keys.map((k) => [k, Buffer.from(added[k]!).toString("base64")])),
        },
      },
    });
  }
  return keys;
}
