import { Group, Text } from "@mantine/core";
import type { WebhookEndpoint } from "@countersign/protocol/wire";
import { StatusBadge } from "../../components/StatusBadge.js";

/** Enabled or disabled, with why it was disabled (by a person, or by the service after failures). */
export function EndpointState({ endpoint: e, testId }: { endpoint: WebhookEndpoint; testId?: string }) {
  return (
    <Group gap={6} wrap="nowrap">
      <StatusBadge
        status={e.enabled ? "active" : "disabled"}
        label={e.enabled ? "enabled" : "disabled"}
        testId={testId}
      />
      {!e.enabled && e.disabled_reason && (
        <Text size="xs" c="dimmed">
          {e.disabled_reason.replace(/_/g, " ")}
        </Text>
      )}
    </Group>
  );
}
