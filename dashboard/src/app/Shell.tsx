import { NavLink, Outlet, useNavigate } from "react-router";
import { organizationsApi } from "../api/organizations.js";
import { useSession, useSignedIn } from "../session/session.js";
import { navigation } from "./navigation.js";
import { orgPath, useCurrentOrganization, useOrganizations } from "../session/organization.js";

/** Header with the organization switcher, the navigation the person's role allows, and sign-out. */
export function Shell() {
  const session = useSignedIn();
  const { signOut, changedElsewhere } = useSession();
  const navigate = useNavigate();
  const orgs = useOrganizations();
  const { orgId, org } = useCurrentOrganization();
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
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
              organizationsApi.switchTo(id).catch(() => undefined);
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
        <NavLink to="/api-reference">API reference</NavLink>
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
            {navigation.map((g) => {
              const entries = g.entries.filter((e) => !e.shows || e.shows(org.role));
              return (
                <div key={g.group} className="nav-group">
                  <h2 id={`nav-${g.group}`}>{g.group}</h2>
                  <ul aria-labelledby={`nav-${g.group}`}>
                    {entries.map((e) => (
                      <li key={e.path}>
                        <NavLink to={orgPath(orgId, e.path)} end={e.path === ""}>
                          {e.label}
                        </NavLink>
                      </li>
                    ))}
                  </ul>
                </div>
              );
            })}
          </nav>
        )}
        <div id="content" tabIndex={-1} className="content">
          <Outlet />
        </div>
      </div>
    </>
  );
}
