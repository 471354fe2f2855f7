import { Badge } from "@mantine/core";
import { statusColor } from "../theme/status.js";

/**
 * A state as a badge, in the one colour its meaning has everywhere (theme/status.ts). The text is
 * the state's own word, so what a person reads is what the API and the receipts say.
 */
export function StatusBadge({ status, label, testId }: { status: string; label?: string; testId?: string }) {
  return (
    <Badge color={statusColor(status)} variant="light" data-status={status} data-testid={testId}>
      {label ?? status.replace(/_/g, " ")}
    </Badge>
  );
}
