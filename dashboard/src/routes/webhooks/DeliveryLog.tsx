import { Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { WebhookDelivery, WebhookEndpoint } from "@countersign/protocol/wire";
import { webhooksApi } from "../../api/webhooks.js";
import { ActionButton } from "../../components/ActionButton.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";

type DeliveryAttempt = WebhookDelivery["attempts"][number];

/**
 * Every delivery of the endpoint with every attempt (time, HTTP status or error, duration), newest
 * first and refreshed while the page is open. A failed delivery is redelivered (8 new attempts); a
 * test event goes to this endpoint only. Both are refused ENDPOINT_DISABLED while the endpoint is
 * disabled and RATE_LIMITED past 5 a minute.
 */
export function DeliveryLog({ orgId, endpoint }: { orgId: string; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: ["deliveries", endpoint.id],
    queryFn: () => webhooksApi.deliveries(orgId, endpoint.id),
    refetchInterval: 2000,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["deliveries", endpoint.id] });
  const test = (
    <ActionButton
      variant="light"
      onClick={async () => {
        await webhooksApi.test(orgId, endpoint.id);
        await refresh();
      }}
    >
      Send a test event
    </ActionButton>
  );
  return (
    <Paper withBorder p="lg" component="section">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Title order={2} size="h3">
              Deliveries
            </Title>
            <Text size="sm" c="dimmed">
              Newest first; a delivery is tried up to 8 times until the endpoint answers 2xx.
            </Text>
          </Stack>
          {test}
        </Group>
        {!endpoint.enabled && (
          <Text size="sm" c="dimmed">
            The endpoint is disabled: enable it to send a test event or redeliver.
          </Text>
        )}
        <Loaded query={deliveries}>
          {(page) =>
            page.items.length === 0 ? (
              <EmptyState title="No deliveries yet.">
                Send a test event to see what the endpoint receives and what it answers.
              </EmptyState>
            ) : (
              <Stack gap="sm" data-testid="deliveries">
                {page.items.map((d) => (
                  <Delivery key={d.id} delivery={d}>
                    {d.state === "failed" && (
                      <ActionButton
                        size="xs"
                        variant="light"
                        onClick={async () => {
                          await webhooksApi.redeliver(orgId, endpoint.id, d.id);
                          await refresh();
                        }}
                      >
                        Redeliver
                      </ActionButton>
                    )}
                  </Delivery>
                ))}
              </Stack>
            )
          }
        </Loaded>
      </Stack>
    </Paper>
  );
}

function Delivery({ delivery: d, children }: { delivery: WebhookDelivery; children?: ReactNode }) {
  return (
    <Paper
      withBorder
      radius="sm"
      p="sm"
      data-testid="delivery"
      data-state={d.state}
      data-event-type={d.event_type}
    >
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Group gap="xs">
              <Code fw={600}>{d.event_type}</Code>
              <StatusBadge status={d.state} testId="delivery-state" />
              {d.state === "pending" && d.next_attempt_at && (
                <Text size="sm">
                  next attempt <When at={d.next_attempt_at} />
                </Text>
              )}
            </Group>
            <Text size="xs" c="dimmed">
              Event {d.event_id}, <When at={d.event_created_at} />
            </Text>
          </Stack>
          {children}
        </Group>
        {d.attempts.length > 0 && (
          <DataTable<DeliveryAttempt>
            caption={`Attempts of delivery ${d.id}`}
            rows={d.attempts}
            rowKey={(a) => String(a.number)}
            empty={null}
            columns={[
              { key: "number", header: "#", align: "right", render: (a) => a.number },
              { key: "time", header: "Time", align: "right", render: (a) => <When at={a.started_at} /> },
              {
                key: "outcome",
                header: "Status or error",
                render: (a) => (
                  <Text span inherit data-testid="attempt-outcome">
                    {outcome(a)}
                  </Text>
                ),
              },
              {
                key: "duration",
                header: "Duration",
                align: "right",
                render: (a) => (
                  <Text span inherit data-testid="attempt-duration">
                    {a.duration_ms === null ? "—" : `${Math.round(a.duration_ms)} ms`}
                  </Text>
                ),
              },
            ]}
          />
        )}
      </Stack>
    </Paper>
  );
}

function outcome(a: DeliveryAttempt): string {
  if (a.status_code !== null) return a.error ? `HTTP ${a.status_code} (${a.error})` : `HTTP ${a.status_code}`;
  if (a.error) return a.error.replace(/_/g, " ");
  return "in progress";
}
