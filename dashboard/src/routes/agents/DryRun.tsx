import { useState } from "react";
import type { DryRunReport } from "@countersign/protocol/wire";
import { agentsApi } from "../../api/agents.js";
import { DashboardError } from "../../api/errors.js";
import { ActionForm, choice, Field, field, isJsonObject } from "../../components/ActionForm.js";
import { JsonBlock } from "../../components/JsonBlock.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { ApproverFix } from "../policies/NoApprovers.js";

/** The Gateway's decision on a call, on current configuration: nothing written, nothing signed. */
export function DryRun({ orgId, agentId }: { orgId: string; agentId: string }) {
  const [report, setReport] = useState<DryRunReport | null>(null);
  const { org } = useCurrentOrganization();
  const unresolved = report?.approvers && !report.approvers.resolved ? report.approvers : null;
  return (
    <section>
      <h2>Dry run</h2>
      <p className="muted">What the agent would receive for a call now. Nothing is recorded or signed.</p>
      <ActionForm
        submit="Dry run"
        onSubmit={async (d) => {
          let args: unknown;
          try {
            args = JSON.parse(field(d, "arguments") || "{}");
          } catch {
            throw new DashboardError("INVALID_JSON", "the arguments are not JSON");
          }
          if (!isJsonObject(args))
            throw new DashboardError("INVALID_JSON", "the arguments are not a JSON object");
          const { dry_run } = await agentsApi.dryRun(orgId, agentId, {
            tool: field(d, "tool"),
            arguments: args,
            environment: choice(d, "environment", ["live", "test"] as const),
          });
          setReport(dry_run);
        }}
      >
        <Field label="Tool" name="tool" />
        <label>
          Arguments (JSON)
          <textarea name="arguments" rows={3} defaultValue="{}" />
        </label>
        <label>
          Environment
          <select name="environment" defaultValue="live">
            <option>live</option>
            <option>test</option>
          </select>
        </label>
      </ActionForm>
      {report && (
        <>
          {unresolved && (
            <p className="warning" data-testid="dry-run-no-approvers" data-code={unresolved.code}>
              The policy holds this call for approval, but no one can approve it now, so it is denied (
              {unresolved.code}).{" "}
              <ApproverFix
                orgId={orgId}
                gap={{
                  roles: unresolved.roles,
                  approver_count: unresolved.approver_count,
                  code: unresolved.code === "TOO_MANY_APPROVERS" ? "TOO_MANY_APPROVERS" : "NO_APPROVERS",
                  members_with_role: unresolved.members_with_role ?? 0,
                }}
                role={org?.role}
              />
            </p>
          )}
          <h3>The agent would receive (HTTP {report.agent_would_receive.http})</h3>
          <JsonBlock
            value={report.agent_would_receive.body}
            label="What the agent would receive"
            testId="dry-run-receives"
          />
          <details>
            <summary>The whole report</summary>
            <JsonBlock value={report} label="The whole dry-run report" />
          </details>
        </>
      )}
    </section>
  );
}
