// Policies, versions, examples, activation and shadow (SPEC 2.4, 3.3-3.5, 4.4, 4.5;
// docs/policy-rollout.md).
import type { ExampleResult, PolicyExample } from "@countersign/protocol/policy";
import {
  activationAnswerSchema,
  examplesAnswerSchema,
  policyAnswerSchema,
  policyCreatedSchema,
  policyDetailSchema,
  policyListSchema,
  policyStatusAnswerSchema,
  policyValidationSchema,
  policyVersionCreatedSchema,
  rollbackAnswerSchema,
  shadowSetAnswerSchema,
  type Activation,
  type Page,
  type Policy,
  type PolicyActivate,
  type PolicyCreate,
  type PolicyDetail,
  type PolicyPatch,
  type PolicyRollback,
  type PolicyStatusItem,
  type PolicyVersion,
  type PolicyVersionCreate,
  type Rollback,
  type ShadowSet,
} from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";

/** A saved example as the Cloud API takes and answers it: the policy engine's own type. */
export type PolicyExampleWire = PolicyExample;
export type { ExampleResult };

export type { Activation, Policy, PolicyDetail, PolicyVersion, PolicyStatusItem, Rollback };

export function policies(client: CloudApiClient) {
  const base = (org: string) => `/orgs/${encodeURIComponent(org)}/policies`;
  const one = (org: string, id: string) => `${base(org)}/${encodeURIComponent(id)}`;
  return {
    get(org: string, id: string): Promise<PolicyDetail> {
      return client.get(one(org, id), policyDetailSchema);
    },
    async findByName(org: string, name: string): Promise<Policy | undefined> {
      let cursor: string | null = null;
      do {
        const page: Page<Policy> = await client.get(
          `${base(org)}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          policyListSchema,
        );
        const found = page.items.find((p) => p.name === name);
        if (found) return found;
        cursor = page.next_cursor;
      } while (cursor);
      return undefined;
    },
    async create(org: string, body: PolicyCreate): Promise<Policy> {
      return (await client.post(base(org), policyCreatedSchema, body)).policy;
    },
    async update(org: string, id: string, body: PolicyPatch): Promise<Policy> {
      return (await client.patch(one(org, id), policyAnswerSchema, body)).policy;
    },
    /** The document's digest as the Cloud API computes it; 422 POLICY_INVALID when invalid. */
    async digestOf(org: string, document: unknown): Promise<string> {
      return (await client.post(`${base(org)}/validate`, policyValidationSchema, { document })).digest;
    },
    async createVersion(org: string, id: string, document: unknown, note: string): Promise<PolicyVersion> {
      return (await client.post(`${one(org, id)}/versions`, policyVersionCreatedSchema, { document, note }))
        .version;
    },
    /** The require-approval draft of a version (SPEC 3.5); 409 DRAFT_EXISTS names an equal draft. */
    async createRequireApprovalCopy(
      org: string,
      id: string,
      sourceVersionId: string,
      note: string,
    ): Promise<PolicyVersion> {
      return (
        await client.post(`${one(org, id)}/versions`, policyVersionCreatedSchema, {
          require_approval_copy_of: sourceVersionId,
          note,
        } satisfies PolicyVersionCreate)
      ).version;
    },
    /** A rollback (SPEC 3.6): a new version copying a superseded one, activated without the gates. */
    rollback(org: string, id: string, body: PolicyRollback): Promise<Rollback> {
      return client.post(`${one(org, id)}/rollback`, rollbackAnswerSchema, body);
    },
    activate(org: string, id: string, versionId: string, body: PolicyActivate): Promise<Activation> {
      return client.post(
        `${one(org, id)}/versions/${encodeURIComponent(versionId)}/activate`,
        activationAnswerSchema,
        body,
      );
    },
    setShadow(org: string, id: string, versionId: string) {
      return client.put(`${one(org, id)}/shadow`, shadowSetAnswerSchema, {
        version_id: versionId,
      } satisfies ShadowSet);
    },
    clearShadow(org: string, id: string) {
      return client.delete(`${one(org, id)}/shadow`, policyAnswerSchema);
    },
    putExamples(org: string, id: string, examples: PolicyExampleWire[]) {
      return client.put(`${one(org, id)}/examples`, examplesAnswerSchema, { examples });
    },
    async status(org: string): Promise<PolicyStatusItem[]> {
      return (await client.get(`/orgs/${encodeURIComponent(org)}/policy-status`, policyStatusAnswerSchema))
        .items;
    },
  };
}
