import type { Discovery as Found, McpServer } from "@countersign/protocol/wire";
import { useState } from "react";
import { Link } from "react-router";
import { mcpServersApi } from "../../api/mcp-servers.js";
import { orgPath } from "../../session/organization.js";
import { RefusalNotice } from "../../components/RefusalNotice.js";

/**
 * Lists the server's tools as it answers tools/list now. Refusals say why: the address is not
 * allowed (URL_NOT_ALLOWED and its reason), too many discoveries at once (DISCOVERY_BUSY), or the
 * upstream failed (UPSTREAM_UNREACHABLE, UPSTREAM_ERROR, UPSTREAM_TIMEOUT, ...).
 */
export function Discovery({ orgId, server }: { orgId: string; server: McpServer }) {
  const [found, setFound] = useState<Found | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section>
      <h2>Discover tools</h2>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            setFound(await mcpServersApi.discover(orgId, server.id));
          } catch (err) {
            setFound(null);
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Discovering…" : "Discover tools"}
      </button>
      <RefusalNotice error={error} />
      {found && (
        <>
          <p role="status">
            {found.tools.length} tools listed on {found.pages} page{found.pages === 1 ? "" : "s"}.
          </p>
          {found.tools.length > 0 && (
            <table data-testid="discovered-tools">
              <thead>
                <tr>
                  <th>Upstream tool</th>
                  <th>Description</th>
                  <th>Input schema</th>
                  <th>Tool here</th>
                </tr>
              </thead>
              <tbody>
                {found.tools.map((t) => (
                  <tr key={t.name}>
                    <td>
                      <code>{t.name}</code>
                    </td>
                    <td>{t.description ?? <span className="muted">none</span>}</td>
                    <td>
                      {t.schema_valid ? (
                        "usable"
                      ) : (
                        <span className="bad">unusable: {t.schema_problem?.replace(/_/g, " ")}</span>
                      )}
                    </td>
                    <td>
                      {t.tool_id ? (
                        <Link to={orgPath(orgId, `/tools/${t.tool_id}`)}>open the tool</Link>
                      ) : t.schema_valid ? (
                        <Link
                          to={orgPath(
                            orgId,
                            `/tools/new?server=${server.id}&upstream=${encodeURIComponent(t.name)}`,
                          )}
                          aria-label={`Make a draft of ${t.name}`}
                        >
                          Make a draft
                        </Link>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
