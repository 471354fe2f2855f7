// Policies, versions, examples, activation and shadow (SPEC 2.4, 3.3-3.5, 4.4, 4.5;
// docs/policy-rollout.md).
import type { CloudApiClient } from "./client.js";

export interface VersionBrief {
  id: string;
  number: number;
  digest: string;
}

export interface PolicyVersion extends VersionBrief {
  status: "draft" | "active" | "superseded";
}

export interface Policy {
  id: string;
  name: string;
  agent_disclosure: "inherit" | "none" | "rule" | "conditions";
  active_version_id: string | null;
  shadow_version_id: string | null;
}

export interface PolicyExampleWire {
  id: string;
  label?: string;
  action: string;
  tool: string;
  amount?: string;
  currency?: string;
  expected_outcome: "allowed" | "requires_approval" | "denied" | "none";
  expected_rule: string;
}

export interface PolicyStatusItem {
  policy_id: string;
  stage: "none" | "observe" | "shadow" | "require_approval" | "enforce";
  active_version: VersionBrief | null;
  shadow_version: VersionBrief | null;
}

export function policies(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/policies`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  return {
    get(
      org: string,
      id: string,
    ): Promise<{ policy: Policy; versions: PolicyVersion[]; examples: PolicyExampleWire[] }> {
      return client.get(one(org, id));
    },
    async findByName(org: string, name: string): Promise<Policy | undefined> {
      let cursor: string | null = null;
      do {
        const page: { items: Policy[]; next_cursor: string | null } = await client.get(
          `${base(org)}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        const found = page.items.find((p) => p.name === name);
        if (found) return found;
        cursor = page.next_cursor;
      } while (cursor);
      return undefined;
    },
    async create(
      org: string,
      body: { name: string; agent_disclosure: Policy["agent_disclosure"] },
    ): Promise<Policy> {
      return (await client.post<{ policy: Policy }>(base(org), body)).policy;
    },
    update(
      org: string,
      id: string,
      body: { agent_disclosure: Policy["agent_disclosure"] },
    ): Promise<unknown> {
      return client.patch(one(org, id), body);
    },
    /** The document's digest as the Cloud API computes it; 422 POLICY_INVALID when invalid. */
    async digestOf(org: string, document: unknown): Promise<string> {
      return (await client.post<{ digest: string }>(`${base(org)}/validate`, { document })).digest;
    },
    async createVersion(org: string, id: string, document: unknown, note: string): Promise<PolicyVersion> {
      return (await client.post<{ version: PolicyVersion }>(`${one(org, id)}/versions`, { document, note }))
        .version;
    },
    activate(
      org: string,
      id: string,
      versionId: string,
      body: { acknowledge_failing_examples: boolean; expected_active_version_id: string | null },
    ) {
      return client.post<{ version: PolicyVersion }>(
        `${one(org, id)}/versions/${encodeURIComponent(versionId)}/activate`,
        body,
      );
    },
    setShadow(org: string, id: string, versionId: string) {
      return client.put(`${one(org, id)}/shadow`, { version_id: versionId });
    },
    clearShadow(org: string, id: string) {
      return client.delete(`${one(org, id)}/shadow`);
    },
    putExamples(org: string, id: string, examples: PolicyExampleWire[]) {
      return client.put(`${one(org, id)}/examples`, { examples });
    },
    async status(org: string): Promise<PolicyStatusItem[]> {
      return (
        await client.get<{ items: PolicyStatusItem[] }>(`/orgs/${encodeURIComponent(org)}/policy-status`)
      ).items;
    },
  };
}
