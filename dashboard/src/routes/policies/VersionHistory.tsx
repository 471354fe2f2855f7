import { useQuery } from "@tanstack/react-query";
import { Badge, Group, Stack, Text, ThemeIcon, Timeline, Title } from "@mantine/core";
import { auditApi } from "../../api/audit.js";
import { policyKeys, type PolicyDetail } from "../../api/policies.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { statusColor } from "../../theme/status.js";
import { emergencyStop, historyActions, policyHistory, type Step, type StepKind } from "./policy-history.js";

const stepWords: Record<StepKind, string> = {
  created: "Drafted",
  shadowed: "Shadowed",
  shadow_cleared: "Shadow cleared",
  activated: "Activated",
  superseded: "Superseded",
};

/**
 * The rollout as a timeline of versions, oldest first: each version with its steps (drafted,
 * shadowed, activated, superseded) and when, the version in force marked. Owners and admins also
 * read who did each step, from the audit log (the newest 50 entries of each kind); the audit log is
 * theirs only, so others see the times.
 */
export function VersionHistory({
  orgId,
  detail,
  mayReadAudit,
}: {
  orgId: string;
  detail: PolicyDetail;
  mayReadAudit: boolean;
}) {
  const { policy, versions } = detail;
  const audit = useQuery({
    // Under the policy's key: every change the page makes invalidates it with the policy.
    queryKey: [...policyKeys.one(policy.id), "history"],
    queryFn: async () =>
      (await Promise.all(historyActions.map((action) => auditApi.page(orgId, { action })))).flatMap(
        (p) => p.items,
      ),
    enabled: mayReadAudit,
  });
  const entries = audit.data ?? null;
  const history = policyHistory(policy, versions, entries);
  const stop = emergencyStop(policy, entries);
  const inForce = history.findIndex((h) => h.inForce);
  return (
    <Stack gap="xs" component="section" aria-labelledby="history-heading">
      <Title order={3} size="h4" id="history-heading">
        Versions over time
      </Title>
      <Text size="sm" c="dimmed">
        {mayReadAudit
          ? "Each version from its draft to now, with who did each step."
          : "Each version from its draft to now. Who did each step is in the audit log, which owners and admins read."}
      </Text>
      <ErrorNotice error={audit.error} />
      <Timeline
        active={inForce}
        bulletSize={26}
        lineWidth={2}
        color={statusColor("active")}
        data-testid="rollout-timeline"
      >
        {history.map((h) => (
          <Timeline.Item
            key={h.version.id}
            data-testid="timeline-version"
            data-version={h.version.number}
            data-status={h.version.status}
            data-in-force={h.inForce}
            lineVariant={h.version.status === "draft" ? "dashed" : "solid"}
            bullet={
              <ThemeIcon
                size={22}
                radius="xl"
                variant={h.inForce ? "filled" : "light"}
                color={statusColor(h.shadow ? "shadow" : h.version.status)}
                aria-hidden
              >
                <Text span size="xs" fw={700} inherit>
                  {h.version.number}
                </Text>
              </ThemeIcon>
            }
            title={
              <Group gap="xs">
                <Text fw={600} size="sm" component="span">
                  Version {h.version.number}
                </Text>
                <StatusBadge status={h.version.status} />
                {h.shadow && <StatusBadge status="shadow" />}
                {h.inForce && (
                  <Badge size="sm" variant="default">
                    in force
                  </Badge>
                )}
                {h.version.note && (
                  <Text size="sm" c="dimmed" component="span">
                    {h.version.note}
                  </Text>
                )}
              </Group>
            }
          >
            <Stack gap={2} mt={4} component="ol" m={0} p={0} style={{ listStyle: "none" }}>
              {h.steps.map((s, i) => (
                <StepLine key={i} step={s} />
              ))}
            </Stack>
          </Timeline.Item>
        ))}
        {stop && (
          <Timeline.Item
            data-testid="timeline-emergency"
            color="red"
            bullet={
              <ThemeIcon size={22} radius="xl" color="red" aria-hidden>
                <Text span size="xs" fw={700} inherit>
                  !
                </Text>
              </ThemeIcon>
            }
            title={
              <Text fw={600} size="sm" component="span">
                Emergency stop
              </Text>
            }
          >
            <Text size="sm">
              <When at={stop.at} />
              {stop.by && ` by ${stop.by}`}: every call is denied until a rollback.
            </Text>
          </Timeline.Item>
        )}
      </Timeline>
    </Stack>
  );
}

function StepLine({ step: s }: { step: Step }) {
  return (
    <Text size="sm" component="li" data-step={s.kind} data-at={s.at} data-by={s.by ?? ""}>
      {stepWords[s.kind]}
      {s.detail ? ` (${s.detail})` : ""}{" "}
      <Text span c="dimmed" inherit>
        <When at={s.at} />
      </Text>
      {s.by && ` by ${s.by}`}
    </Text>
  );
}
