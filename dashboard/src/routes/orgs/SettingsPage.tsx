import { Alert, NativeSelect, Stack } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { agentDisclosures, type OrganizationSettings } from "@countersign/protocol/wire";
import { organizationKeys, organizationsApi } from "../../api/organizations.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";

/** What each disclosure ceiling lets an agent read of a refusal (SPEC 2.1). */
const disclosureWords: Record<(typeof agentDisclosures)[number], string> = {
  none: "none: only the outcome",
  rule: "rule: the rule that decided",
  conditions: "conditions: the rule and its conditions",
};

/**
 * Organization settings (SPEC 2.1). The bounds are the Cloud API's: a value outside them is refused
 * with the sentence under its field, and nothing changes. Observe settings and data retention are
 * the owner's only.
 */
export function SettingsPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(false);
  if (!org) return <LoadingLine />;
  const owner = can.own(org.role);
  return (
    <Stack gap="md" maw={560}>
      <PageHeader
        title="Settings"
        description="The organization's name, how long approval requests wait, and what agents learn of refusals."
      />
      <ActionForm
        submit="Save"
        onSubmit={async (d) => {
          setSaved(false);
          const body: OrganizationSettings = {
            name: field(d, "name"),
            approval_ttl_seconds: Number(field(d, "approval_ttl_seconds")),
            agent_disclosure: choice(d, "agent_disclosure", agentDisclosures),
          };
          if (owner) {
            body.observe_max_hours = Number(field(d, "observe_max_hours"));
            const days = field(d, "data_retention_days");
            body.data_retention_days = days === "" ? null : Number(days);
          }
          await organizationsApi.update(orgId, body);
          await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
          setSaved(true);
        }}
      >
        <Field label="Name" name="name" defaultValue={org.name} maxLength={200} />
        <Field
          label="Approval lifetime (seconds, 60 to 2592000)"
          name="approval_ttl_seconds"
          type="number"
          defaultValue={org.approval_ttl_seconds}
          description="How long a held call waits for a person before it expires."
        />
        <NativeSelect
          label="Disclosure ceiling for agents"
          name="agent_disclosure"
          defaultValue={org.agent_disclosure}
          description="The most a refused agent is told; a policy may tell less."
          data={agentDisclosures.map((d) => ({ value: d, label: disclosureWords[d] }))}
        />
        {owner && (
          <Field
            label="Longest observe window (hours, 0 is off)"
            name="observe_max_hours"
            type="number"
            defaultValue={org.observe_max_hours}
          />
        )}
        {owner && (
          <Field
            label="Data retention (days, empty for the plan's)"
            name="data_retention_days"
            type="number"
            required={false}
            defaultValue={org.data_retention_days ?? ""}
          />
        )}
      </ActionForm>
      {saved && (
        <Alert color="green" variant="light" role="status" data-testid="notice">
          Settings saved.
        </Alert>
      )}
    </Stack>
  );
}
