import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import type { MapEntry, MapOutcome } from "@countersign/protocol/policy";
import { policies, type PolicyDetail } from "../../api/policies.js";
import { Loaded } from "../../components/Loading.js";

const band = (a: MapEntry["amount"]) => {
  if (!a) return "any call (no amount)";
  const parts = [
    a.gt !== undefined && `over ${a.gt}`,
    a.gte !== undefined && `from ${a.gte}`,
    a.lt !== undefined && `under ${a.lt}`,
    a.lte !== undefined && `up to ${a.lte}`,
  ].filter(Boolean);
  return `${parts.length ? parts.join(", ") : "any amount"} ${a.currency ?? "(other currencies)"}`;
};
const outcome = (o: MapOutcome) => `${o.effect.replace("_", " ")} by ${o.rule_id ?? "the default"}`;

/** The decision map of a version: for each tool of the organization, what it decides by amount band. */
export function DecisionMapView({ orgId, detail }: { orgId: string; detail: PolicyDetail }) {
  const { policy, versions } = detail;
  const [versionId, setVersionId] = useState(policy.active_version_id ?? versions[0]?.id ?? "");
  const map = useQuery({
    queryKey: ["decision-map", policy.id, versionId],
    queryFn: () => policies.decisionMap(orgId, policy.id, versionId),
    enabled: !!versionId,
  });
  return (
    <section aria-labelledby="map-heading">
      <h2 id="map-heading">Decision map</h2>
      <label>
        Version
        <select value={versionId} onChange={(e) => setVersionId(e.target.value)}>
          {versions.map((v) => (
            <option key={v.id} value={v.id}>
              Version {v.number} ({v.status})
            </option>
          ))}
        </select>
      </label>
      {versionId && (
        <Loaded query={map}>
          {({ decision_map }) =>
            decision_map.tools.length === 0 ? (
              <p className="muted">The organization has no tools yet.</p>
            ) : (
              <table data-testid="decision-map">
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Action</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Decision</th>
                  </tr>
                </thead>
                <tbody>
                  {decision_map.tools.flatMap((t) =>
                    t.entries.map((e, i) => (
                      <tr key={`${t.tool}-${i}`}>
                        <td>{t.tool}</td>
                        <td>{t.action}</td>
                        <td>{band(e.amount)}</td>
                        <td>
                          {e.decision
                            ? outcome(e.decision)
                            : `depends on the arguments: ${e.possible.map(outcome).join(" or ")}`}
                        </td>
                      </tr>
                    )),
                  )}
                </tbody>
              </table>
            )
          }
        </Loaded>
      )}
    </section>
  );
}
