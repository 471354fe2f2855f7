import { Stack, Text } from "@mantine/core";
import { failureOf } from "../api/errors.js";
import { ErrorNotice } from "./ErrorNotice.js";

/**
 * A refusal with what its details add for the person: why an address is not allowed
 * (URL_NOT_ALLOWED's `reason`), how long to wait (DISCOVERY_BUSY, RATE_LIMITED), the upstream's
 * HTTP status, the binding digest a re-authorization must name.
 */
export function RefusalNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const d = failureOf(error)?.details ?? {};
  const facts: string[] = [];
  if (typeof d.reason === "string") facts.push(`Reason: ${d.reason.replace(/_/g, " ")}.`);
  if (typeof d.retry_after_seconds === "number") facts.push(`Try again in ${d.retry_after_seconds} seconds.`);
  if (typeof d.http_status === "number") facts.push(`The upstream answered HTTP ${d.http_status}.`);
  if (typeof d.declared_kid === "string")
    facts.push(`The server declares identity ${d.declared_kid}; registered: ${d.registered_kid ?? "none"}.`);
  if (typeof d.binding_digest === "string") facts.push(`The binding now: ${d.binding_digest}.`);
  return (
    <Stack gap={4} data-testid="refusal">
      <ErrorNotice error={error} />
      {facts.length > 0 && (
        <Text c="dimmed" size="sm" data-testid="refusal-details">
          {facts.join(" ")}
        </Text>
      )}
    </Stack>
  );
}
