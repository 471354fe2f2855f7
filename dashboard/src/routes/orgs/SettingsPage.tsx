import { useQueryClient } from "@tanstack/react-query";
import { agentDisclosures, type OrganizationSettings } from "@countersign/protocol/wire";
import { organizationKeys, organizationsApi } from "../../api/organizations.js";
import { ActionForm, choice, Field, field } from "../../components/ActionForm.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";

/** Organization settings (SPEC 2.1): observe settings and data retention for owners only. */
export function SettingsPage() {
  const { orgId, org } = useCurrentOrganization();
  const queryClient = useQueryClient();
  if (!org) return <main className="muted">Loading…</main>;
  const owner = can.own(org.role);
  return (
    <main>
      <h1>Settings</h1>
      <ActionForm
        submit="Save"
        onSubmit={async (d) => {
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
        }}
      >
        <Field label="Name" name="name" defaultValue={org.name} />
        <Field
          label="Approval lifetime (seconds, 60 to 2592000)"
          name="approval_ttl_seconds"
          type="number"
          defaultValue={org.approval_ttl_seconds}
        />
        <label>
          Disclosure ceiling for agents
          <select name="agent_disclosure" defaultValue={org.agent_disclosure}>
            <option>none</option>
            <option>rule</option>
            <option>conditions</option>
          </select>
        </label>
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
    </main>
  );
}
