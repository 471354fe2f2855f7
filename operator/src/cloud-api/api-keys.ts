// Gateway keys: the secret leaves the Cloud API once, in the creation answer, and the operator puts
// it straight into the agent's Secret.
import type { ApiKey, ApiKeyInput } from "@countersign/protocol/wire";
import { allPages } from "./pages.js";
import type { CloudApiClient } from "./client.js";

export type { ApiKey };

export function apiKeys(client: CloudApiClient) {
  const base = (o: string) => `/orgs/${encodeURIComponent(o)}/api-keys`;
  return {
    async findGatewayKey(o: string, id: string): Promise<ApiKey | undefined> {
      return (await allPages<ApiKey>(client, `${base(o)}?kind=gateway`)).find((k) => k.id === id);
    },
    createGatewayKey(
      o: string,
      input: Omit<Extract<ApiKeyInput, { kind: "gateway" }>, "kind">,
    ): Promise<{ api_key: ApiKey; secret: string }> {
      return client.post(base(o), { kind: "gateway", ...input } satisfies ApiKeyInput);
    },
    async revoke(o: string, id: string): Promise<ApiKey> {
      return (await client.post<{ api_key: ApiKey }>(`${base(o)}/${encodeURIComponent(id)}/revoke`)).api_key;
    },
  };
}
