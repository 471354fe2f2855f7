import { NavLink, Outlet, useNavigate } from "react-router";
import { api } from "../api/client.js";
import { useSession, useSignedIn } from "../session/session.js";
import { can } from "./roles.js";
import { ConfigurationLinks } from "../routes/configuration-routes.js";
import { orgPath, useCurrentOrganization, useOrganizations } from "./organization.js";

/** Header with the organization switcher, the navigation the person's role allows, and sign-out. */
export function Shell() {
  const session = useSignedIn();
  const { signOut, changedElsewhere } = useSession();
  const navigate = useNavigate();
  const orgs = useOrganizations();
  const { orgId, org } = useCurrentOrganization();
  return (
    <>
      <header>
        <strong className="brand">Countersign</strong>
        <label className="switcher">
          Organization{" "}
          <select
            aria-label="Organization"
            value={orgId}
            onChange={(e) => {
              const id = e.target.value;
              if (!id) return navigate("/orgs/new");
              api.post(`/orgs/${id}/switch`).catch(() => undefined);
              navigate(orgPath(id));
            }}
          >
            <option value="">
              {orgs.data?.items.length ? "New organization…" : "Create an organization…"}
            </option>
            {orgs.data?.items.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.role})
              </option>
            ))}
          </select>
        </label>
        <NavLink to="/account">{session.user.email}</NavLink>
        <button type="button" onClick={() => signOut().then(() => navigate("/sign-in"))}>
          Sign out
        </button>
      </header>
      {changedElsewhere && (
        <p className="warning" role="alert" data-code="SESSION_CHANGED">
          The signed-in account changed in another tab. Changes made here are refused;{" "}
          <a href={window.location.pathname}>reload the page</a>.
        </p>
      )}
      <div className="layout">
        {org && (
          <nav aria-label="Organization">
            <NavLink to={orgPath(orgId)} end>
              Overview
            </NavLink>
            {can.decideApprovals(org.role) && <NavLink to={orgPath(orgId, "/approvals")}>Approvals</NavLink>}
            <NavLink to={orgPath(orgId, "/agents")}>Agents</NavLink>
            <NavLink to={orgPath(orgId, "/actions")}>Actions</NavLink>
            <NavLink to={orgPath(orgId, "/receipts")}>Receipts</NavLink>
            <NavLink to={orgPath(orgId, "/principal")}>Principal</NavLink>
            <ConfigurationLinks orgId={orgId} role={org.role} />
            {can.administer(org.role) && <NavLink to={orgPath(orgId, "/members")}>Members</NavLink>}
            {can.administer(org.role) && <NavLink to={orgPath(orgId, "/settings")}>Settings</NavLink>}
          </nav>
        )}
        <Outlet />
      </div>
    </>
  );
}
