import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { AuditEntry } from "@countersign/protocol/wire";
import { auditApi } from "../../api/audit.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

/** Who did what: the organization's audit log (owners and admins), newest first. */
export function AuditLogPage() {
  const { orgId, org } = useCurrentOrganization();
  const [action, setAction] = useState("");
  const mayAdminister = !!org && can.administer(org.role);
  const entries = useInfiniteQuery({
    queryKey: ["audit", orgId, action],
    queryFn: ({ pageParam }) => auditApi.page(orgId, { action, cursor: pageParam }),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled: mayAdminister,
  });
  if (!org) return <main className="muted">Loading…</main>;
  if (!mayAdminister)
    return (
      <main>
        <h1>Audit log</h1>
        <p>Only owners and admins read the audit log.</p>
      </main>
    );
  const items = entries.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <main>
      <h1>Audit log</h1>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setAction(String(new FormData(e.currentTarget).get("action") ?? "").trim());
        }}
      >
        <label>
          Action
          <input name="action" placeholder="for example agent.created" defaultValue={action} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {entries.isPending ? (
        <p className="muted">Loading…</p>
      ) : entries.isError ? (
        <ErrorNotice error={entries.error} />
      ) : items.length === 0 ? (
        <p className="muted">No entries.</p>
      ) : (
        <table data-testid="audit-log">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>Actor</th>
              <th>Target</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <td>
                  <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString()}</time>
                </td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>
                  <ActorName actor={e.actor} />
                </td>
                <td>{e.target ? `${e.target.type} ${e.target.id ?? ""}` : ""}</td>
                <td>{Object.keys(e.details).length > 0 && <code>{JSON.stringify(e.details)}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entries.hasNextPage && (
        <button type="button" disabled={entries.isFetchingNextPage} onClick={() => entries.fetchNextPage()}>
          Older entries
        </button>
      )}
    </main>
  );
}

/** People by e-mail, keys by id, the Kubernetes operator by its ServiceAccount. */
function ActorName({ actor }: { actor: AuditEntry["actor"] }) {
  if (actor.type === "operator")
    return (
      <span data-testid="operator-actor">
        Kubernetes operator <code>{actor.label ?? actor.id}</code>
      </span>
    );
  if (actor.type === "api_key") return <>management key {actor.id}</>;
  return <>{actor.label ?? actor.id ?? actor.type}</>;
}
