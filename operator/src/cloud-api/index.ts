import { CloudApiClient } from "./client.js";
import { organizations } from "./organizations.js";

export { CloudApiClient, CloudApiError, type CloudApiClientOptions } from "./client.js";
export type { Organization, OrganizationUpdate } from "./organizations.js";

/** The Cloud API as the operator uses it, one property per resource. */
export function cloudApi(client: CloudApiClient) {
  return { organizations: organizations(client) };
}
export type CloudApi = ReturnType<typeof cloudApi>;
