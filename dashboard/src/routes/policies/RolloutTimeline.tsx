import { Alert, Badge, Box, Paper, SimpleGrid, Text } from "@mantine/core";
import type { RolloutStage } from "@countersign/protocol/wire";
import { statusColor } from "../../theme/status.js";

const stages: { stage: RolloutStage; name: string; what: string }[] = [
  {
    stage: "observe",
    name: "Observe",
    what: "calls are allowed and recorded while an observe window is open",
  },
  {
    stage: "shadow",
    name: "Shadow",
    what: "a new version is evaluated beside the active one, deciding nothing",
  },
  {
    stage: "require_approval",
    name: "Require approval",
    what: "what the new version would deny is held for approval",
  },
  { stage: "enforce", name: "Enforce", what: "the active version decides every call" },
];

/**
 * The rollout stages of SPEC 3.5 in order, the current one marked (in words as well as colour); the
 * stage is derived by the service on every read.
 */
export function RolloutTimeline({ stage, stopped }: { stage: RolloutStage; stopped: boolean }) {
  const at = stages.findIndex((s) => s.stage === stage);
  return (
    <Box>
      <SimpleGrid
        component="ol"
        cols={{ base: 1, xs: 2, md: 4 }}
        spacing="xs"
        m={0}
        p={0}
        style={{ listStyle: "none" }}
        aria-label="Rollout stage"
        data-testid="rollout-stage"
        data-stage={stage}
      >
        {stages.map((s, i) => {
          const current = i === at;
          return (
            <Paper
              key={s.stage}
              component="li"
              withBorder
              p="sm"
              aria-current={current ? "step" : undefined}
              bg={current ? `var(--mantine-color-${statusColor(s.stage)}-light)` : undefined}
              style={
                current ? { borderColor: `var(--mantine-color-${statusColor(s.stage)}-filled)` } : undefined
              }
            >
              <Text fw={600} size="sm">
                {i + 1}. {s.name}{" "}
                {current && (
                  <Badge component="span" size="xs" variant="default" ml={4}>
                    now
                  </Badge>
                )}
              </Text>
              <Text size="xs" c={current ? undefined : "dimmed"}>
                {s.what}
              </Text>
            </Paper>
          );
        })}
      </SimpleGrid>
      {stage === "none" && (
        <Text c="dimmed" size="sm" mt="xs">
          No version is active: every call of this policy&apos;s agents is denied.
        </Text>
      )}
      {stopped && (
        <Alert color="red" variant="light" role="alert" data-code="EMERGENCY_ACTIVE" mt="xs">
          Emergency stop: every call is denied until a rollback.
        </Alert>
      )}
    </Box>
  );
}
