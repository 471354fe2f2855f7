import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { PolicyDiff } from "@countersign/protocol/policy";
import { policies, type PolicyDetail, type PolicyVersion } from "../../api/policies.js";
import { Loaded } from "../../components/Loading.js";
import { VersionDocument } from "./VersionDocument.js";

/** Every version with its status and note, newest first, and a diff between any two. */
export function VersionsPanel({
  orgId,
  detail,
  mayActivate,
  onActivate,
}: {
  orgId: string;
  detail: PolicyDetail;
  mayActivate: boolean;
  onActivate: (v: PolicyVersion) => void;
}) {
  const { policy, versions } = detail;
  const [from, setFrom] = useState(versions[1]?.id ?? versions[0]?.id ?? "");
  const [to, setTo] = useState(versions[0]?.id ?? "");
  const [shown, setShown] = useState<PolicyVersion | null>(null);
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <table data-testid="versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Note</th>
            <th scope="col">Origin</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.id} data-version={v.number} data-status={v.status}>
              <td>
                {v.number}
                {v.id === policy.shadow_version_id && <span className="badge">shadow</span>}
              </td>
              <td>{v.status}</td>
              <td>{v.note ?? <span className="muted">none</span>}</td>
              <td>{v.origin.replaceAll("_", " ")}</td>
              <td>{v.created_at.slice(0, 16).replace("T", " ")}</td>
              <td>
                <button type="button" aria-pressed={shown?.id === v.id} onClick={() => setShown(v)}>
                  Show version {v.number}
                </button>
                {mayActivate && v.status === "draft" && (
                  <button type="button" onClick={() => onActivate(v)}>
                    Activate version {v.number}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown && (
        <VersionDocument orgId={orgId} policyId={policy.id} version={shown} onClose={() => setShown(null)} />
      )}
      {versions.length > 1 && (
        <>
          <h3>Compare two versions</h3>
          <div className="row">
            <VersionSelect label="From" value={from} onChange={setFrom} versions={versions} />
            <VersionSelect label="To" value={to} onChange={setTo} versions={versions} />
          </div>
          {from && to && (
            <VersionDiff orgId={orgId} policyId={policy.id} from={from} to={to} versions={versions} />
          )}
        </>
      )}
    </section>
  );
}

function VersionSelect({
  label,
  value,
  onChange,
  versions,
}: {
  label: string;
  value: string;
  onChange: (id: string) => void;
  versions: PolicyVersion[];
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {versions.map((v) => (
          <option key={v.id} value={v.id}>
            Version {v.number} ({v.status})
          </option>
        ))}
      </select>
    </label>
  );
}

function VersionDiff({
  orgId,
  policyId,
  from,
  to,
  versions,
}: {
  orgId: string;
  policyId: string;
  from: string;
  to: string;
  versions: PolicyVersion[];
}) {
  const diff = useQuery({
    queryKey: ["diff", policyId, from, to],
    queryFn: () => policies.diff(orgId, policyId, from, to),
  });
  const n = (id: string) => versions.find((v) => v.id === id)?.number;
  return (
    <div data-testid="diff" aria-live="polite">
      <Loaded query={diff}>{({ diff: d }) => <DiffText diff={d} from={n(from)} to={n(to)} />}</Loaded>
    </div>
  );
}

function DiffText({ diff: d, from, to }: { diff: PolicyDiff; from?: number; to?: number }) {
  if (d.identical)
    return (
      <p>
        Versions {from} and {to} have the same document.
      </p>
    );
  return (
    <ul className="diff">
      {d.revision && (
        <li>
          Language revision {d.revision.from} → {d.revision.to}
        </li>
      )}
      {d.default_changed.length > 0 && <li>Default changed: {d.default_changed.join(", ")}</li>}
      {d.added.map((r) => (
        <li key={`a${r.rule_id}`} className="added">
          Added rule <code>{r.rule_id}</code> ({r.effect}) at position {r.index + 1}
        </li>
      ))}
      {d.removed.map((r) => (
        <li key={`r${r.rule_id}`} className="removed">
          Removed rule <code>{r.rule_id}</code> ({r.effect})
        </li>
      ))}
      {d.changed.map((r) => (
        <li key={`c${r.rule_id}`}>
          Changed rule <code>{r.rule_id}</code>: {r.fields.join(", ")}
        </li>
      ))}
      {d.moved.map((r) => (
        <li key={`m${r.rule_id}`}>
          Moved rule <code>{r.rule_id}</code> from position {r.from_index + 1} to {r.to_index + 1}
        </li>
      ))}
    </ul>
  );
}
