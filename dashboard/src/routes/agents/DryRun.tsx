import { Accordion, Alert, NativeSelect, Paper, Stack, Text, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import type { DryRunReport } from "@countersign/protocol/wire";
import { agentsApi } from "../../api/agents.js";
import { ActionForm, choice, Field, field, isJsonObject } from "../../components/ActionForm.js";
import { JsonBlock } from "../../components/JsonBlock.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { ApproverFix } from "../policies/NoApprovers.js";

/** What a person typed as the call's arguments: a JSON object, or the sentence that says why not. */
function argumentsOf(text: string): { args: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() || "{}");
  } catch {
    return { problem: 'The arguments are not JSON; write them as an object, such as {"amount": 40}.' };
  }
  return isJsonObject(value)
    ? { args: value }
    : { problem: 'The arguments must be a JSON object, such as {"amount": 40}.' };
}

/** The Gateway's decision on a call, on current configuration: nothing written, nothing signed. */
export function DryRun({ orgId, agentId }: { orgId: string; agentId: string }) {
  const [report, setReport] = useState<DryRunReport | null>(null);
  const [argumentsProblem, setArgumentsProblem] = useState<string | null>(null);
  const { org } = useCurrentOrganization();
  const unresolved = report?.approvers && !report.approvers.resolved ? report.approvers : null;
  const body = report?.agent_would_receive.body;
  const status = body && typeof body.status === "string" ? body.status : null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="dry-run-title">
      <Stack gap="md">
        <Title order={2} size="h3" id="dry-run-title">
          Dry run
        </Title>
        <Text size="sm" c="dimmed">
          What the agent would receive for a call now. Nothing is recorded or signed.
        </Text>
        <ActionForm
          submit="Dry run"
          onSubmit={async (d) => {
            const parsed = argumentsOf(field(d, "arguments"));
            if ("problem" in parsed) {
              setArgumentsProblem(parsed.problem);
              return;
            }
            setArgumentsProblem(null);
            const { dry_run } = await agentsApi.dryRun(orgId, agentId, {
              tool: field(d, "tool"),
              arguments: parsed.args,
              environment: choice(d, "environment", ["live", "test"] as const),
            });
            setReport(dry_run);
          }}
        >
          <Field label="Tool" name="tool" description="The tool's exposed name, as the agent calls it." />
          <Textarea
            label="Arguments (JSON)"
            name="arguments"
            defaultValue="{}"
            autosize
            minRows={3}
            error={argumentsProblem}
            onChange={() => setArgumentsProblem(null)}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          />
          <NativeSelect
            label="Environment"
            name="environment"
            defaultValue="live"
            data={["live", "test"]}
            maw={240}
          />
        </ActionForm>
        {report && (
          <Stack gap="sm">
            {unresolved && (
              <Alert
                color="yellow"
                variant="light"
                data-testid="dry-run-no-approvers"
                data-code={unresolved.code}
              >
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
              </Alert>
            )}
            <Title order={3} size="h4">
              The agent would receive (HTTP {report.agent_would_receive.http})
            </Title>
            {status && <StatusBadge status={status} testId="dry-run-status" />}
            <JsonBlock
              value={report.agent_would_receive.body}
              label="What the agent would receive"
              testId="dry-run-receives"
            />
            <Accordion variant="contained">
              <Accordion.Item value="report">
                <Accordion.Control>The whole report</Accordion.Control>
                <Accordion.Panel>
                  <JsonBlock value={report} label="The whole dry-run report" />
                </Accordion.Panel>
              </Accordion.Item>
            </Accordion>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
