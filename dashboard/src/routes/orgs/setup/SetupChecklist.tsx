import {
  Anchor,
  Box,
  Button,
  Group,
  List,
  Paper,
  Progress,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from "@mantine/core";
import { IconCheck, IconCircleDashed, IconLock } from "@tabler/icons-react";
import { useState } from "react";
import { Link } from "react-router";
import type { Role } from "@countersign/protocol/wire";
import { ErrorNotice } from "../../../components/ErrorNotice.js";
import { LoadingLine } from "../../../components/Loading.js";
import { StatusBadge } from "../../../components/StatusBadge.js";
import { orgPath } from "../../../session/organization.js";
import { statusColor } from "../../../theme/status.js";
import { isDismissed, setDismissed } from "./dismissal.js";
import { useSetupData } from "./setup-data.js";
import { progressOf, setupSteps, type SetupStep, type StepState } from "./steps.js";

const icons: Record<StepState, typeof IconCheck> = {
  done: IconCheck,
  to_do: IconCircleDashed,
  blocked: IconLock,
};
const words: Record<StepState, string> = { done: "done", to_do: "to do", blocked: "blocked" };

/**
 * The overview's guided first run: the steps the person can take, in order, each done, to do or
 * blocked by an earlier one, with the page that does it. Shown until every step is done (as the
 * Cloud API says) or the person hides it; "Show the setup checklist" brings it back.
 */
export function SetupChecklist({ orgId, role }: { orgId: string; role: Role | null }) {
  // Nothing is read for a person who can take none of the steps (a viewer).
  const possible = setupSteps(emptyData, role).length > 0;
  const setup = useSetupData(orgId, role, possible);
  const [dismissed, setHidden] = useState(() => isDismissed(orgId));
  const [reopened, setReopened] = useState(false);
  if (!possible) return null;
  if (setup.error) return <ErrorNotice error={setup.error} />;
  if (!setup.data) return <LoadingLine />;
  const steps = setupSteps(setup.data, role);
  const progress = progressOf(steps);
  const open = reopened || (!progress.complete && !dismissed);
  if (!open)
    return (
      <Group>
        <Button
          variant="light"
          size="xs"
          onClick={() => {
            setDismissed(orgId, false);
            setHidden(false);
            setReopened(true);
          }}
        >
          Show the setup checklist
        </Button>
      </Group>
    );
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="section"
      aria-labelledby="setup-heading"
      data-testid="setup-checklist"
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Title order={2} size="h3" id="setup-heading">
              Set up the organization
            </Title>
            <Text size="sm" c="dimmed" data-testid="setup-progress">
              {progress.done} of {progress.total} steps done
            </Text>
          </Stack>
          <Button
            variant="subtle"
            size="xs"
            onClick={() => {
              if (!progress.complete) setDismissed(orgId, true);
              setHidden(true);
              setReopened(false);
            }}
          >
            Hide the checklist
          </Button>
        </Group>
        <Progress
          value={(100 * progress.done) / Math.max(1, progress.total)}
          aria-label={`${progress.done} of ${progress.total} setup steps done`}
        />
        <List type="ordered" listStyleType="none" spacing="sm" p={0}>
          {steps.map((s) => (
            <Step key={s.id} orgId={orgId} step={s} />
          ))}
        </List>
      </Stack>
    </Paper>
  );
}

function Step({ orgId, step }: { orgId: string; step: SetupStep }) {
  const Icon = icons[step.state];
  return (
    <List.Item
      data-step={step.id}
      data-state={step.state}
      icon={
        <ThemeIcon color={statusColor(step.state)} variant="light" radius="xl" size="md" aria-hidden>
          <Icon size={16} />
        </ThemeIcon>
      }
    >
      <Box>
        <Group gap="xs">
          <Text fw={600} size="sm">
            {step.title}
          </Text>
          <StatusBadge status={step.state} label={words[step.state]} />
        </Group>
        <Text size="sm" c="dimmed">
          {step.sentence}
        </Text>
        {step.state !== "done" && (
          <Anchor
            component={Link}
            to={step.link.account ? step.link.to : orgPath(orgId, step.link.to)}
            size="sm"
          >
            {step.link.label}
          </Anchor>
        )}
      </Box>
    </List.Item>
  );
}

/** Enough to ask which steps a role can take before anything is read. */
const emptyData = {
  mcpServers: [],
  tools: [],
  policies: [],
  agents: [],
  gatewayKeys: undefined,
  delegations: {},
  principal: false,
  ownIdentities: undefined,
  activeHoldsCalls: {},
};
