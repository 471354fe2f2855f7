// Gateway keys: the secret leaves the Cloud API once, in the creation answer, and the operator puts
// it straight into the agent's Secret. Every key the operator creates names the Agent resource it
// was made for (`created_for`, its metadata.uid), so a key whose creation answer was lost is found
// again with one filtered read; a pass otherwise reads only the one key it holds (docs/crds.md).
import {
  apiKeyAnswerSchema,
  apiKeyCreatedSchema,
  apiKeyListSchema,
  type ApiKey,
  type ApiKeyInput,
} from "@countersign/protocol/wire";
import { allPages } from "./pages.js";
import type { CloudApiClient } from "./client.js";
import { isNotFound } from "./refusal.js";

export type { ApiKey };

export function apiKeys(client: CloudApiClient) {
  const base = (o: string) => `/orgs/${encodeURIComponent(o)}/api-keys`;
  return {
    /** The key of that id; undefined when the organization has none. */
    async get(o: string, id: string): Promise<ApiKey | undefined> {
      try {
        return (await client.get(`${base(o)}/${encodeURIComponent(id)}`, apiKeyAnswerSchema)).api_key;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    /** The keys not revoked that were created for this resource (usually one; more only after a lost answer). */
    unrevokedCreatedFor(o: string, createdFor: string): Promise<ApiKey[]> {
      return allPages(
        client,
        `${base(o)}?kind=gateway&state=active&created_for=${encodeURIComponent(createdFor)}`,
        apiKeyListSchema,
      );
    },
    createGatewayKey(
      o: string,
      input: Omit<Extract<ApiKeyInput, { kind: "gateway" }>, "kind">,
      createdFor: string,
    ): Promise<{ api_key: ApiKey; secret: string }> {
      return client.post(`${base(o)}?created_for=${encodeURIComponent(createdFor)}`, apiKeyCreatedSchema, {
        kind: "gateway",
        ...input,
      } satisfies ApiKeyInput);
    },
    async revoke(o: string, id: string): Promise<ApiKey> {
      return (await client.post(`${base(o)}/${encodeURIComponent(id)}/revoke`, apiKeyAnswerSchema)).api_key;
    },
  };
}
