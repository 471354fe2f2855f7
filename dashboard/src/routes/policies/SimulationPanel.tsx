import { useState, type FormEvent } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Alert,
  Button,
  Group,
  NativeSelect,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import {
  policies,
  type Baseline,
  type DocumentJson,
  type PolicyDetail,
  type SavedSimulation,
  type Simulation,
  type SimulationRequest,
} from "../../api/policies.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { When } from "../../components/When.js";
import { SimulationReport } from "./SimulationReport.js";

const scopes = [
  { value: "agents", label: "the agents using this policy now" },
  { value: "policy", label: "any agent, decided under this policy" },
] as const;
const environments = ["all", "live", "test"] as const;

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
  const [candidate, setCandidate] = useState(
    editorDocument ? "editor" : (detail.versions[0]?.id ?? "editor"),
  );
  const [baseline, setBaseline] = useState(detail.policy.active_version_id ? "active" : "none");
  const [windowDays, setWindowDays] = useState<number | string>(7);
  const [scope, setScope] = useState<(typeof scopes)[number]["value"]>("agents");
  const [environment, setEnvironment] = useState<(typeof environments)[number]>("all");
  const [windowError, setWindowError] = useState<string | null>(null);
  const [result, setResult] = useState<{ request: SimulationRequest; simulation: Simulation } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const savedList = useQuery({
    queryKey: ["simulations", policyId],
    queryFn: () => policies.simulations(orgId, policyId),
  });

  const versionLabel = (id: string) => {
    const v = detail.versions.find((x) => x.id === id);
    return v ? `version ${v.number}` : id;
  };
  const candidateName =
    candidate === "editor"
      ? "The editor's text"
      : `Version ${versionLabel(candidate).replace("version ", "")}`;
  const baselineName =
    baseline === "active"
      ? "The active version"
      : baseline === "recorded"
        ? "What was recorded"
        : baseline === "none"
          ? "None"
          : `Version ${versionLabel(baseline.slice(8)).replace("version ", "")}`;

  async function run(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    setSaved(null);
    const days = Number(windowDays);
    if (!Number.isInteger(days) || days < 1 || days > 90)
      return setWindowError("The window is a whole number of days from 1 to 90.");
    if (candidate === "editor" && !editorDocument) {
      setResult(null);
      return setError(new Error("the editor's text is not a document yet"));
    }
    const base: Baseline = baseline.startsWith("version:")
      ? { kind: "version", version_id: baseline.slice(8) }
      : baseline === "recorded"
        ? { kind: "recorded" }
        : baseline === "none"
          ? { kind: "none" }
          : { kind: "active" };
    const request: SimulationRequest = {
      candidate: candidate === "editor" ? { document: editorDocument! } : { version_id: candidate },
      baseline: base,
      window_days: days,
      scope,
      environment,
    };
    setBusy(true);
    try {
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

  return (
    <Stack gap="md" component="section" aria-labelledby="simulation-heading">
      <Title order={2} size="h3" id="simulation-heading">
        Simulation
      </Title>
      <Text size="sm" c="dimmed">
        Replays the recorded calls of a window under a candidate and a baseline. Nothing is changed.
      </Text>
      <Paper withBorder p="md">
        <form onSubmit={run} noValidate>
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
              <NativeSelect
                label="Candidate"
                value={candidate}
                onChange={(e) => setCandidate(e.currentTarget.value)}
                data={[
                  { value: "editor", label: "The editor's text" },
                  ...detail.versions.map((v) => ({
                    value: v.id,
                    label: `Version ${v.number} (${v.status})`,
                  })),
                ]}
              />
              <NativeSelect
                label="Baseline"
                value={baseline}
                onChange={(e) => setBaseline(e.currentTarget.value)}
                data={[
                  { value: "active", label: "The active version" },
                  { value: "recorded", label: "What was recorded" },
                  { value: "none", label: "None" },
                  ...detail.versions.map((v) => ({ value: `version:${v.id}`, label: `Version ${v.number}` })),
                ]}
              />
              <NumberInput
                label="Window (days, 1 to 90)"
                value={windowDays}
                onChange={(v) => {
                  setWindowDays(v);
                  setWindowError(null);
                }}
                min={1}
                max={90}
                allowDecimal={false}
                error={windowError}
              />
              <NativeSelect
                label="Calls of"
                value={scope}
                onChange={(e) => {
                  const s = scopes.find((x) => x.value === e.currentTarget.value);
                  if (s) setScope(s.value);
                }}
                data={[...scopes]}
              />
              <NativeSelect
                label="Environment"
                value={environment}
                onChange={(e) => {
                  const env = environments.find((x) => x === e.currentTarget.value);
                  if (env) setEnvironment(env);
                }}
                data={[...environments]}
              />
            </SimpleGrid>
            <Group>
              <Button type="submit" loading={busy}>
                Run the simulation
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <ErrorNotice error={error} />
      {result && (
        <Stack gap="sm">
          <SimulationReport
            report={result.simulation.report}
            caption={`Result over ${result.request.window_days} day(s)`}
            baseline={baselineName}
            candidate={candidateName}
          />
          {mayWrite && "version_id" in result.request.candidate && (
            <Group>
              <Button variant="light" onClick={save}>
                Save this simulation
              </Button>
            </Group>
          )}
          {mayWrite && !("version_id" in result.request.candidate) && (
            <Text c="dimmed" size="sm">
              Only a simulation of a saved version can be saved.
            </Text>
          )}
        </Stack>
      )}
      {saved && (
        <Alert color="green" variant="light" role="status">
          {saved}
        </Alert>
      )}
      <Title order={3} size="h4">
        Saved simulations
      </Title>
      <DataTable<SavedSimulation>
        testId="saved-simulations"
        rows={savedList.data?.items ?? []}
        rowKey={(s) => s.id}
        defaultSort={{ key: "created", descending: true }}
        empty={
          <EmptyState title="No saved simulations yet.">
            Run a simulation of a saved version above, then save it to name it when you activate.
          </EmptyState>
        }
        columns={[
          {
            key: "created",
            header: "Saved",
            align: "right",
            sortValue: (s) => s.created_at,
            render: (s) => <When at={s.created_at} />,
          },
          { key: "candidate", header: "Candidate", render: (s) => versionLabel(s.candidate_version_id) },
          {
            key: "baseline",
            header: "Baseline",
            render: (s) =>
              `${s.baseline.kind}${s.baseline.version_id ? ` (${versionLabel(s.baseline.version_id)})` : ""}`,
          },
          {
            key: "window",
            header: "Window",
            align: "right",
            sortValue: (s) => s.parameters.window_days,
            render: (s) => `${s.parameters.window_days} day(s)`,
          },
          {
            key: "expires",
            header: "Kept until",
            align: "right",
            sortValue: (s) => s.expires_at,
            render: (s) => s.expires_at.slice(0, 10),
          },
        ]}
      />
    </Stack>
  );
}
