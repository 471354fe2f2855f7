import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { policies, type PolicyDetail, policyKeys } from "../../api/policies.js";
import { failureOf, idIn } from "../../api/errors.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { SimulationReport } from "./SimulationReport.js";

/** The shadow version: set and cleared by writers, and its report: what it would have decided on the recorded calls. */
export function ShadowPanel({
  orgId,
  detail,
  mayWrite,
}: {
  orgId: string;
  detail: PolicyDetail;
  mayWrite: boolean;
}) {
  const { policy, versions } = detail;
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  // What the shadow became when someone else changed it between this page's reading and the request.
  const [changedTo, setChangedTo] = useState<string | null | undefined>(undefined);
  const [windowDays, setWindowDays] = useState(7);
  const shadow = versions.find((v) => v.id === policy.shadow_version_id) ?? null;
  const candidates = versions.filter((v) => v.id !== policy.active_version_id);
  const [choice, setChoice] = useState(candidates.find((v) => v.status === "draft")?.id ?? "");
  const report = useQuery({
    queryKey: ["shadow-report", policy.id, policy.shadow_version_id, windowDays],
    queryFn: () => policies.shadowReport(orgId, policy.id, windowDays),
    enabled: !!shadow,
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) }),
      queryClient.invalidateQueries({ queryKey: policyKeys.status(orgId) }),
    ]);

  async function act(f: () => Promise<unknown>) {
    setError(null);
    setChangedTo(undefined);
    try {
      await f();
      await refresh();
    } catch (err) {
      const failure = failureOf(err);
      if (failure?.code === "SHADOW_CHANGED") {
        setChangedTo(idIn(failure.details, "shadow_version_id"));
        await refresh();
        return;
      }
      setError(err);
    }
  }
  const numberOf = (id: string | null) => {
    const n = versions.find((v) => v.id === id)?.number;
    return id === null ? "no version is shadowed" : `it is now version ${n ?? "?"}`;
  };

  return (
    <section aria-labelledby="shadow-heading">
      <h2 id="shadow-heading">Shadow</h2>
      <p data-testid="shadow-state">
        {shadow
          ? `Version ${shadow.number} is the shadow: it decides nothing, and its report shows what it would have decided.`
          : "No shadow version."}
      </p>
      {mayWrite && (
        <div className="row">
          <label>
            Version to shadow
            <select value={choice} onChange={(e) => setChoice(e.target.value)}>
              <option value="">Choose a version</option>
              {candidates.map((v) => (
                <option key={v.id} value={v.id}>
                  Version {v.number} ({v.status})
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!choice || choice === policy.shadow_version_id}
            onClick={() => act(() => policies.setShadow(orgId, policy.id, choice, policy.shadow_version_id))}
          >
            Start shadow
          </button>
          {shadow && (
            <button type="button" onClick={() => act(() => policies.clearShadow(orgId, policy.id))}>
              Clear the shadow
            </button>
          )}
        </div>
      )}
      <ErrorNotice error={error} />
      {changedTo !== undefined && (
        <p className="error" role="alert" data-testid="shadow-changed" data-code="SHADOW_CHANGED">
          Someone changed the shadow meanwhile: {numberOf(changedTo)}. Nothing was changed; look at it and
          choose again. <span className="code">(SHADOW_CHANGED)</span>
        </p>
      )}
      {shadow && (
        <>
          <label className="inline">
            Report window (days)
            <select value={windowDays} onChange={(e) => setWindowDays(Number(e.target.value))}>
              {[1, 7, 30, 90].map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          </label>
          {report.isPending && <p className="muted">Loading the report…</p>}
          {report.isError && <ErrorNotice error={report.error} />}
          {report.data && (
            <SimulationReport
              report={report.data.report}
              caption={`Shadow version ${shadow.number} against what was recorded, ${windowDays} day(s)`}
            />
          )}
        </>
      )}
    </section>
  );
}
