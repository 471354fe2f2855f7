// The organization principal's private key, kept in the Secret an Organization names (the spec's
// "key backup"). It is read when something must be signed and never kept, logged or put in status.
import { createPrivateKey } from "node:crypto";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { nodeSigner, type Signer } from "@countersign/protocol/evidence";

export type PrincipalKey =
  | { signer: Signer }
  | { problem: { reason: "SecretNotFound" | "KeyNotFound" | "InvalidKey"; message: string } };

export function principalKeyReader(kubeConfig: KubeConfig) {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return async (namespace: string, ref: { name: string; key: string }): Promise<PrincipalKey> => {
    let data: Record<string, string> | undefined;
    try {
      data = (await core.readNamespacedSecret({ name: ref.name, namespace })).data;
    } catch (error) {
      if ((error as { code?: number }).code === 404)
        return { problem: { reason: "SecretNotFound", message: `Secret ${ref.name} does not exist` } };
      throw error;
    }
    const value = data?.[ref.key];
    if (!value)
      return { problem: { reason: "KeyNotFound", message: `Secret ${ref.name} has no key ${ref.key}` } };
    try {
      return { signer: nodeSigner(createPrivateKey(Buffer.from(value, "base64"))) };
    } catch {
      return {
        problem: {
          reason: "InvalidKey",
          message: `Secret ${ref.name} key ${ref.key} is not an Ed25519 private key (PKCS#8 PEM)`,
        },
      };
    }
  };
}
