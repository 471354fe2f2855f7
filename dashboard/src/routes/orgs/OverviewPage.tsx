import { Anchor, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { Link } from "react-router";
import { overviewApi } from "../../api/overview.js";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { NoApprovers } from "../policies/NoApprovers.js";
import { SetupChecklist } from "./setup/SetupChecklist.js";

// Charts load with their own chunk, never with the main one.
const DecisionsChart = lazy(() =>
  import("../../components/charts/DecisionsChart.js").then((m) => ({ default: m.DecisionsChart })),
);
const UsageChart = lazy(() =>
  import("../../components/charts/UsageChart.js").then((m) => ({ default: m.UsageChart })),
);

const periods = [7, 30, 90];

/** One figure of the period, large, with what it counts and where it leads. */
function Figure({
  label,
  value,
  to,
  testId,
}: {
  label: string;
  value: number;
  to?: string;
  testId?: string;
}) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz="xl" fw={700} data-testid={testId}>
        {to ? (
          <Anchor component={Link} to={to} inherit>
            {value}
          </Anchor>
        ) : (
          value
        )}
      </Text>
    </Paper>
  );
}

/**
 * The organization at a glance: the setup checklist while first steps remain, decisions over time
 * by status, pending approvals, and usage against the plan.
 */
export function OverviewPage() {
  const { orgId, org } = useCurrentOrganization();
  const [days, setDays] = useState(30);
  const overview = useQuery({ ...overviewApi.query(orgId, days), enabled: !!org });
  const usage = useQuery({ ...overviewApi.usageQuery(orgId), enabled: !!org });
  const status = useQuery({
    queryKey: policyKeys.status(orgId),
    queryFn: () => policies.status(orgId),
    enabled: !!org,
  });
  if (!org) return <LoadingLine />;
  return (
    <Stack gap="lg">
      <PageHeader
        title={org.name}
        description={
          <>
            You are{" "}
            <Text span fw={700} inherit data-testid="role">
              {org.role}
            </Text>{" "}
            here.
          </>
        }
      />
      {status.data && <NoApprovers orgId={orgId} items={status.data.items} role={org.role} />}
      <SetupChecklist key={orgId} orgId={orgId} role={org.role} />
      <Stack component="section" aria-labelledby="decisions-heading" gap="sm">
        <Group justify="space-between" align="flex-end">
          <Title order={2} size="h3" id="decisions-heading">
            Decisions
          </Title>
          <NativeSelect
            label="Period"
            size="xs"
            value={String(days)}
            onChange={(e) => setDays(Number(e.currentTarget.value))}
            data={periods.map((d) => ({ value: String(d), label: `last ${d} days` }))}
          />
        </Group>
        <Loaded query={overview}>
          {(o) => (
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <Figure label="Decisions in the period" value={o.actions.total} testId="decisions-total" />
                <Figure
                  label="Approvals waiting"
                  value={o.approvals.pending}
                  to={orgPath(orgId, "/approvals")}
                />
                <Figure label="Active agents" value={o.agents.active} to={orgPath(orgId, "/agents")} />
              </SimpleGrid>
              <Suspense fallback={<LoadingLine />}>
                <DecisionsChart overview={o} />
              </Suspense>
            </Stack>
          )}
        </Loaded>
      </Stack>
      <Stack component="section" aria-labelledby="usage-heading" gap="sm">
        <Title order={2} size="h3" id="usage-heading">
          Usage
        </Title>
        <Loaded query={usage}>
          {(u) => (
            <Stack gap="sm">
              <Suspense fallback={<LoadingLine />}>
                <UsageChart usage={u} />
              </Suspense>
              <Text size="sm">
                Plan <strong>{u.plan}</strong>. Other allowances and billing:{" "}
                <Anchor component={Link} to={orgPath(orgId, "/billing")}>
                  Plan and billing
                </Anchor>
                .
              </Text>
            </Stack>
          )}
        </Loaded>
      </Stack>
    </Stack>
  );
}
