import { useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { Anchor, Button, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { policies, policyKeys, type PolicyStatusItem } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { RefusalNotice } from "../../components/RefusalNotice.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { stageLabel, stageStatus } from "./stage-label.js";

/** The organization's policies with their rollout stage; writers create one, empty or from a template. */
export function PoliciesPage() {
  const { orgId, org } = useCurrentOrganization();
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  const mayWrite = !!org && can.manage(org.role);
  return (
    <Stack gap="lg">
      <PageHeader
        title="Policies"
        description="A policy decides each call of its agents: allow, hold for a person's approval, or deny. Versions are rolled out through shadow and require-approval stages before they enforce."
      />
      <Loaded query={status}>
        {({ items }) => (
          <DataTable
            testId="policies"
            caption="Policies"
            rows={items}
            rowKey={(p) => p.policy_id}
            defaultSort={{ key: "name", descending: false }}
            empty={
              <EmptyState title="No policies yet.">
                {mayWrite
                  ? "Create one with the form below: empty (every call denied) or from a template."
                  : "An owner, admin or developer creates the first one."}
              </EmptyState>
            }
            columns={[
              {
                key: "name",
                header: "Policy",
                sortValue: (p) => p.name,
                render: (p) => (
                  <Anchor component={Link} to={orgPath(orgId, `/policies/${p.policy_id}`)}>
                    {p.name}
                  </Anchor>
                ),
              },
              { key: "stage", header: "Stage", sortValue: (p) => p.stage, render: (p) => <Stage item={p} /> },
              {
                key: "active",
                header: "Active",
                align: "right",
                sortValue: (p) => p.active_version?.number,
                render: (p) => (p.active_version ? `version ${p.active_version.number}` : "none"),
              },
              {
                key: "shadow",
                header: "Shadow",
                align: "right",
                sortValue: (p) => p.shadow_version?.number,
                render: (p) => (p.shadow_version ? `version ${p.shadow_version.number}` : "none"),
              },
            ]}
          />
        )}
      </Loaded>
      {mayWrite && <NewPolicy orgId={orgId} />}
    </Stack>
  );
}

function Stage({ item: p }: { item: PolicyStatusItem }) {
  return (
    <Group gap="xs">
      {p.emergency_stopped ? (
        <StatusBadge status="denied" label="emergency stop" />
      ) : (
        <StatusBadge
          status={stageStatus(p.stage, p.draft_version?.number)}
          label={stageLabel(p.stage, p.draft_version?.number)}
        />
      )}
      {(p.unapprovable ?? []).length > 0 && (
        <Text span size="sm" fw={600} data-testid="row-no-approvers">
          No one can approve its held calls: see the policy.
        </Text>
      )}
    </Group>
  );
}

/** A new policy, empty (every call denied) or from one of the templates. */
function NewPolicy({ orgId }: { orgId: string }) {
  const navigate = useNavigate();
  const templates = useQuery({
    queryKey: ["policy-templates", orgId],
    queryFn: () => policies.templates(orgId),
  });
  const [name, setName] = useState("");
  const [template, setTemplate] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function create(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    const trimmed = name.trim();
    if (!trimmed) return setNameError("Give the policy a name, such as refunds.");
    if (trimmed.length > 200) return setNameError("A name is at most 200 characters.");
    setBusy(true);
    try {
      const { policy } = template
        ? await policies.fromTemplate(orgId, { name: trimmed, template_id: template })
        : await policies.create(orgId, { name: trimmed });
      navigate(orgPath(orgId, `/policies/${policy.id}`));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="lg" maw={560}>
      <form onSubmit={create} noValidate>
        <Stack gap="sm">
          <Title order={2} size="h4">
            New policy
          </Title>
          <TextInput
            label="Name"
            name="name"
            required
            value={name}
            error={nameError}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setNameError(null);
            }}
          />
          <NativeSelect
            label="Start from"
            name="template"
            value={template}
            onChange={(e) => setTemplate(e.currentTarget.value)}
            data={[
              { value: "", label: "An empty policy (every call denied)" },
              ...(templates.data?.items.map((t) => ({ value: t.id, label: t.name })) ?? []),
            ]}
            description={templates.data?.items.find((t) => t.id === template)?.description}
          />
          <Group>
            <Button type="submit" loading={busy}>
              Create the policy
            </Button>
          </Group>
          <RefusalNotice error={error} />
        </Stack>
      </form>
    </Paper>
  );
}
