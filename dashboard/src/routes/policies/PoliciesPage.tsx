import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";
import { Loaded } from "../../components/Loading.js";
import { stageLabel } from "./stage-label.js";

/** The organization's policies with their rollout stage; writers create one, empty or from a template. */
export function PoliciesPage() {
  const { orgId, org } = useCurrentOrganization();
  const navigate = useNavigate();
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  const templates = useQuery({
    queryKey: ["policy-templates", orgId],
    queryFn: () => policies.templates(orgId),
  });
  return (
    <main>
      <h1>Policies</h1>
      <Loaded query={status}>
        {({ items }) =>
          items.length === 0 ? (
            <p className="muted">No policies yet.</p>
          ) : (
            <table data-testid="policies">
              <thead>
                <tr>
                  <th scope="col">Policy</th>
                  <th scope="col">Stage</th>
                  <th scope="col">Active</th>
                  <th scope="col">Shadow</th>
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <tr key={p.policy_id}>
                    <td>
                      <Link to={orgPath(orgId, `/policies/${p.policy_id}`)}>{p.name}</Link>
                    </td>
                    <td>
                      {p.emergency_stopped ? "emergency stop" : stageLabel(p.stage, p.draft_version?.number)}
                      {(p.unapprovable ?? []).length > 0 && (
                        <span className="warning-text" data-testid="row-no-approvers">
                          {" "}
                          (no one can approve its held calls: see the policy)
                        </span>
                      )}
                    </td>
                    <td>{p.active_version ? `version ${p.active_version.number}` : "none"}</td>
                    <td>{p.shadow_version ? `version ${p.shadow_version.number}` : "none"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
      {org && can.manage(org.role) && (
        <>
          <h2>New policy</h2>
          <ActionForm
            submit="Create the policy"
            onSubmit={async (d) => {
              const template = field(d, "template");
              const name = field(d, "name");
              const { policy } = template
                ? await policies.fromTemplate(orgId, { name, template_id: template })
                : await policies.create(orgId, { name });
              navigate(orgPath(orgId, `/policies/${policy.id}`));
            }}
          >
            <Field label="Name" name="name" />
            <label>
              Start from
              <select name="template" defaultValue="">
                <option value="">An empty policy (every call denied)</option>
                {templates.data?.items.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </label>
          </ActionForm>
        </>
      )}
    </main>
  );
}
