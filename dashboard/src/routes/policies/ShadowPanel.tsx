import { useState } from "react";
import { Alert, Button, Group, NativeSelect, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { policies, type PolicyDetail, policyKeys } from "../../api/policies.js";
import { failureOf, idIn } from "../../api/errors.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { LoadingLine } from "../../components/Loading.js";
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

  const baselineName = (id: string | null) => {
    const n = versions.find((v) => v.id === id)?.number;
    return id === null ? "No active version" : `Active version ${n ?? "?"}`;
  };
  return (
    <Stack gap="sm" component="section" aria-labelledby="shadow-heading">
      <Title order={2} size="h3" id="shadow-heading">
        Shadow
      </Title>
      <Text data-testid="shadow-state">
        {shadow
          ? `Version ${shadow.number} is the shadow: it decides nothing, and its report shows what it would have decided.`
          : "No shadow version."}
      </Text>
      {mayWrite && (
        <Group gap="sm" align="flex-end">
          <NativeSelect
            label="Version to shadow"
            value={choice}
            onChange={(e) => setChoice(e.currentTarget.value)}
            data={[
              { value: "", label: "Choose a version" },
              ...candidates.map((v) => ({ value: v.id, label: `Version ${v.number} (${v.status})` })),
            ]}
          />
          <Button
            disabled={!choice || choice === policy.shadow_version_id}
            onClick={() => act(() => policies.setShadow(orgId, policy.id, choice, policy.shadow_version_id))}
          >
            Start shadow
          </Button>
          {shadow && (
            <Button variant="default" onClick={() => act(() => policies.clearShadow(orgId, policy.id))}>
              Clear the shadow
            </Button>
          )}
        </Group>
      )}
      <ErrorNotice error={error} />
      {changedTo !== undefined && (
        <Alert
          color="red"
          variant="light"
          role="alert"
          data-testid="shadow-changed"
          data-code="SHADOW_CHANGED"
        >
          Someone changed the shadow meanwhile: {numberOf(changedTo)}. Nothing was changed; look at it and
          choose again.{" "}
          <Text span size="xs" c="dimmed" ff="monospace">
            (SHADOW_CHANGED)
          </Text>
        </Alert>
      )}
      {shadow && (
        <>
          <NativeSelect
            label="Report window (days)"
            maw={200}
            value={String(windowDays)}
            onChange={(e) => setWindowDays(Number(e.currentTarget.value))}
            data={["1", "7", "30", "90"]}
          />
          {report.isPending && <LoadingLine />}
          {report.isError && <ErrorNotice error={report.error} />}
          {report.data && (
            <SimulationReport
              report={report.data.report}
              caption={`Shadow version ${shadow.number} against what was recorded, ${windowDays} day(s)`}
              baseline={baselineName(report.data.active_version_id)}
              candidate={`Shadow version ${shadow.number}`}
            />
          )}
        </>
      )}
    </Stack>
  );
}
