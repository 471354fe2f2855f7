import { useState } from "react";
import { api } from "../../api/client.js";
import { DashboardError } from "../../api/errors.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { JsonBlock } from "../../components/JsonBlock.js";

interface DryRunReport {
  agent_would_receive: { http: number; body: unknown };
  [k: string]: unknown;
}

/** The Gateway's decision on a call, on current configuration: nothing written, nothing signed. */
export function DryRun({ orgId, agentId }: { orgId: string; agentId: string }) {
  const [report, setReport] = useState<DryRunReport | null>(null);
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
          const { dry_run } = await api.post<{ dry_run: DryRunReport }>(
            `/orgs/${orgId}/agents/${agentId}/dry-run`,
            {
              tool: field(d, "tool"),
              arguments: args,
              environment: field(d, "environment"),
            },
          );
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
