import { useState, type FormEvent } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  policies,
  type Baseline,
  type DocumentJson,
  type PolicyDetail,
  type Simulation,
  type SimulationRequest,
} from "../../api/policies.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { choice } from "../../components/ActionForm.js";
import { SimulationReport } from "./SimulationReport.js";

/**
 * Simulation (SPEC 4.5): a candidate (the editor's text or a saved version) replayed on the
 * recorded calls of a window against a baseline. Nothing changes; a simulation of a saved
 * version can be saved, to be named at activation.
 */
export function SimulationPanel({
  orgId,
  detail,
  editorDocument,
  mayWrite,
}: {
  orgId: string;
  detail: PolicyDetail;
  editorDocument: DocumentJson | null;
  mayWrite: boolean;
}) {
  const policyId = detail.policy.id;
  const queryClient = useQueryClient();
  const [result, setResult] = useState<{ request: SimulationRequest; simulation: Simulation } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const savedList = useQuery({
    queryKey: ["simulations", policyId],
    queryFn: () => policies.simulations(orgId, policyId),
  });

  async function run(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const d = new FormData(e.currentTarget);
    const candidate = String(d.get("candidate"));
    const baselineKind = String(d.get("baseline"));
    const baseline: Baseline = baselineKind.startsWith("version:")
      ? { kind: "version", version_id: baselineKind.slice(8) }
      : ({ kind: baselineKind } as Baseline);
    setError(null);
    setSaved(null);
    try {
      if (candidate === "editor" && !editorDocument)
        throw new Error("the editor's text is not a document yet");
      const request: SimulationRequest = {
        candidate: candidate === "editor" ? { document: editorDocument! } : { version_id: candidate },
        baseline,
        window_days: Number(d.get("window_days")),
        scope: choice(d, "scope", ["agents", "policy"] as const),
        environment: choice(d, "environment", ["all", "live", "test"] as const),
      };
      setBusy(true);
      setResult({ request, simulation: (await policies.simulate(orgId, policyId, request)).simulation });
    } catch (err) {
      setError(err);
      setResult(null);
    } finally {
      setBusy(false);
    }
  }

  async function save() {
    if (!result) return;
    setError(null);
    try {
      const { simulation } = await policies.saveSimulation(orgId, policyId, result.request);
      setSaved(`Saved as simulation ${simulation.id}, kept until ${simulation.expires_at.slice(0, 10)}.`);
      await queryClient.invalidateQueries({ queryKey: ["simulations", policyId] });
    } catch (err) {
      setError(err);
    }
  }

  const versionLabel = (id: string) => {
    const v = detail.versions.find((x) => x.id === id);
    return v ? `version ${v.number}` : id;
  };

  return (
    <section aria-labelledby="simulation-heading">
      <h2 id="simulation-heading">Simulation</h2>
      <form onSubmit={run}>
        <label>
          Candidate
          <select name="candidate" defaultValue={editorDocument ? "editor" : detail.versions[0]?.id}>
            <option value="editor">The editor's text</option>
            {detail.versions.map((v) => (
              <option key={v.id} value={v.id}>
                Version {v.number} ({v.status})
              </option>
            ))}
          </select>
        </label>
        <label>
          Baseline
          <select name="baseline" defaultValue={detail.policy.active_version_id ? "active" : "none"}>
            <option value="active">The active version</option>
            <option value="recorded">What was recorded</option>
            <option value="none">None</option>
            {detail.versions.map((v) => (
              <option key={v.id} value={`version:${v.id}`}>
                Version {v.number}
              </option>
            ))}
          </select>
        </label>
        <label>
          Window (days, 1 to 90)
          <input name="window_days" type="number" min={1} max={90} defaultValue={7} required />
        </label>
        <label>
          Calls of
          <select name="scope" defaultValue="agents">
            <option value="agents">the agents using this policy now</option>
            <option value="policy">any agent, decided under this policy</option>
          </select>
        </label>
        <label>
          Environment
          <select name="environment" defaultValue="all">
            <option>all</option>
            <option>live</option>
            <option>test</option>
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Run the simulation
        </button>
      </form>
      <ErrorNotice error={error} />
      {result && (
        <>
          <SimulationReport
            report={result.simulation.report}
            caption={`Result over ${result.request.window_days} day(s)`}
          />
          {mayWrite && "version_id" in result.request.candidate && (
            <button type="button" onClick={save}>
              Save this simulation
            </button>
          )}
          {mayWrite && !("version_id" in result.request.candidate) && (
            <p className="muted">Only a simulation of a saved version can be saved.</p>
          )}
        </>
      )}
      {saved && <p role="status">{saved}</p>}
      <h3>Saved simulations</h3>
      {savedList.data?.items.length ? (
        <ul data-testid="saved-simulations">
          {savedList.data.items.map((s) => (
            <li key={s.id}>
              {s.created_at.slice(0, 16).replace("T", " ")}: {versionLabel(s.candidate_version_id)} against{" "}
              {s.baseline.kind}
              {s.baseline.version_id ? ` (${versionLabel(s.baseline.version_id)})` : ""},{" "}
              {s.parameters.window_days} day(s)
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None yet.</p>
      )}
    </section>
  );
}
