// The versions a Policy resource needs, found before made: a version is known by its document's
// digest (the Cloud API's, from POST policies/validate), so a resync never creates a second version
// of the same document, and a require-approval copy by the version it was made from. Keeps the
// policy's detail (GET policies/<id>) fresh after every change it makes.
import { CloudApiError, type CloudApi } from "../cloud-api/index.js";
import type { PolicyDetail, PolicyVersion } from "../cloud-api/policies.js";

export class PolicyVersions {
  private constructor(
    private readonly api: CloudApi["policies"],
    private readonly orgId: string,
    private readonly policyId: string,
    /** Notes name the resource the versions came from. */
    private readonly resource: string,
    public detail: PolicyDetail,
  ) {}

  /** `detail` when the caller read it in this pass already, else read now. */
  static async load(
    api: CloudApi["policies"],
    orgId: string,
    policyId: string,
    resource: string,
    detail?: PolicyDetail,
  ) {
    return new PolicyVersions(api, orgId, policyId, resource, detail ?? (await api.get(orgId, policyId)));
  }

  async refresh(): Promise<PolicyDetail> {
    return (this.detail = await this.api.get(this.orgId, this.policyId));
  }

  /** The version holding `document`: one not superseded with its digest, else a new one. */
  async of(document: unknown, note: string): Promise<PolicyVersion> {
    const digest = await this.api.digestOf(this.orgId, document);
    const existing = this.detail.versions.find((v) => v.digest === digest && v.status !== "superseded");
    if (existing) return existing;
    const created = await this.api.createVersion(this.orgId, this.policyId, document, note);
    await this.refresh();
    return created;
  }

  /** The require-approval copy of `target` (SPEC 3.5): one made earlier and not superseded, else a new one. */
  async requireApprovalCopyOf(target: PolicyVersion): Promise<PolicyVersion> {
    const existing = this.detail.versions.find(
      (v) =>
        v.origin === "require_approval_copy" &&
        v.source_version_id === target.id &&
        v.status !== "superseded",
    );
    if (existing) return existing;
    try {
      const created = await this.api.createRequireApprovalCopy(
        this.orgId,
        this.policyId,
        target.id,
        `require-approval copy of version ${target.number}, from ${this.resource}`,
      );
      await this.refresh();
      return created;
    } catch (error) {
      // A draft with the copy's digest exists already (made another way): that draft is the copy.
      if (!(error instanceof CloudApiError && error.code === "DRAFT_EXISTS")) throw error;
      await this.refresh();
      const same = this.detail.versions.find((v) => v.id === error.details?.version_id);
      if (!same) throw error;
      return same;
    }
  }

  /** Sets `version` as shadow unless it is; true when it changed something. */
  async setShadow(version: PolicyVersion): Promise<boolean> {
    if (this.detail.policy.shadow_version_id === version.id) return false;
    await this.api.setShadow(this.orgId, this.policyId, version.id);
    await this.refresh();
    return true;
  }
}
