/** API keys (SPEC 2.5): gateway keys of an agent, management keys of the organization. */
import { queryOptions } from "@tanstack/react-query";
import {
  apiKeyAnswerSchema,
  apiKeyCreatedSchema,
  apiKeyListSchema,
  type ApiKeyInput,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const apiKeyKeys = { all: (orgId: string) => ["api-keys", orgId] as const };

export const apiKeysApi = {
  listQuery: (orgId: string, kind: "gateway" | "management") =>
    queryOptions({
      queryKey: [...apiKeyKeys.all(orgId), kind],
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/api-keys"), apiKeyListSchema, { query: { kind, limit: 100 } }),
    }),
  /** The answer carries the key's secret: the only time it is shown. */
  create: (orgId: string, body: ApiKeyInput) =>
    cloud.request("POST", inOrg(orgId, "/api-keys"), apiKeyCreatedSchema, { body }),
  revoke: (orgId: string, keyId: string) =>
    cloud.request("POST", inOrg(orgId, `/api-keys/${seg(keyId)}/revoke`), apiKeyAnswerSchema, { body: {} }),
};
