import { Link } from "react-router";
import { orgPath, useCurrentOrganization } from "../../app/organization.js";

export function OverviewPage() {
  const { orgId, org } = useCurrentOrganization();
  if (!org) return <main className="muted">Loading…</main>;
  return (
    <main>
      <h1>{org.name}</h1>
      <p>
        You are <strong data-testid="role">{org.role}</strong> here.
      </p>
      <ul>
        <li>
          <Link to={orgPath(orgId, "/approvals")}>Approvals</Link>: calls waiting for a person.
        </li>
        <li>
          <Link to={orgPath(orgId, "/agents")}>Agents</Link>: their policies, gateway keys and delegations.
        </li>
        <li>
          <Link to={orgPath(orgId, "/receipts")}>Receipts</Link>: signed evidence of every decision,
          verifiable offline.
        </li>
      </ul>
    </main>
  );
}
