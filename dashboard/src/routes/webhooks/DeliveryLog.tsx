import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { WebhookDelivery, WebhookEndpoint } from "@countersign/protocol/wire";

type DeliveryAttempt = WebhookDelivery["attempts"][number];
import { webhooksApi } from "../../api/webhooks.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Loaded } from "../../components/Loading.js";
import { When } from "../../components/When.js";

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
  return (
    <section>
      <h2>Deliveries</h2>
      {!endpoint.enabled && (
        <p className="muted">The endpoint is disabled: enable it to send a test event or redeliver.</p>
      )}
      <ActionButton
        onClick={async () => {
          await webhooksApi.test(orgId, endpoint.id);
          await refresh();
        }}
      >
        Send a test event
      </ActionButton>
      <Loaded query={deliveries}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No deliveries yet.</p>
          ) : (
            <ol className="deliveries" data-testid="deliveries">
              {page.items.map((d) => (
                <Delivery key={d.id} delivery={d}>
                  {d.state === "failed" && (
                    <ActionButton
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
            </ol>
          )
        }
      </Loaded>
    </section>
  );
}

function Delivery({ delivery: d, children }: { delivery: WebhookDelivery; children?: ReactNode }) {
  return (
    <li data-testid="delivery" data-state={d.state} data-event-type={d.event_type}>
      <div>
        <strong>{d.event_type}</strong> <span data-testid="delivery-state">{d.state}</span>
        {d.state === "pending" && d.next_attempt_at && (
          <>
            , next attempt <When at={d.next_attempt_at} />
          </>
        )}{" "}
        <span className="muted">
          event {d.event_id}, <When at={d.event_created_at} />
        </span>{" "}
        {children}
      </div>
      {d.attempts.length > 0 && (
        <table className="attempts">
          <caption className="muted">Attempts of delivery {d.id}</caption>
          <thead>
            <tr>
              <th>#</th>
              <th>Time</th>
              <th>Status or error</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr key={a.number} data-testid="attempt">
                <td>{a.number}</td>
                <td>
                  <When at={a.started_at} />
                </td>
                <td data-testid="attempt-outcome">{outcome(a)}</td>
                <td>{a.duration_ms === null ? "—" : `${Math.round(a.duration_ms)} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

function outcome(a: DeliveryAttempt): string {
  if (a.status_code !== null) return a.error ? `HTTP ${a.status_code} (${a.error})` : `HTTP ${a.status_code}`;
  if (a.error) return a.error.replace(/_/g, " ");
  return "in progress";
}
