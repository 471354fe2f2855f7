import { Badge, VisuallyHidden } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { approvalsApi, decidableBy, QUEUE_PAGE } from "../../api/approvals.js";
import { identitiesApi } from "../../api/me.js";
import { useSignedIn } from "../../session/session.js";
import { statusColor } from "../../theme/status.js";

/**
 * The navigation's live figure next to Approvals: how many of this organization's pending requests
 * the signed-in person can decide now (one of their bound keys among the approvers). It reads the
 * same query as the approvals page, so both refresh together every few seconds while the page is
 * visible, and it is keyed by the organization: another organization's queue never counts here.
 */
export function WaitingCount({ orgId }: { orgId: string }) {
  const session = useSignedIn();
  const queue = useQuery(approvalsApi.pendingQuery(orgId));
  // The same key as the account page's list, so binding a key there updates the count here.
  const mine = useQuery({ queryKey: ["identities", session.user.id], queryFn: identitiesApi.list });
  if (!queue.data || !mine.data) return null;
  const kids = new Set(mine.data.items.filter((i) => i.status === "active").map((i) => i.kid));
  const waiting = queue.data.items.filter((a) => decidableBy(a, kids)).length;
  if (waiting === 0) return null;
  const shown = waiting >= QUEUE_PAGE && queue.data.next_cursor ? `${QUEUE_PAGE}+` : String(waiting);
  return (
    <Badge color={statusColor("pending")} variant="light" size="sm" data-testid="waiting-count">
      {shown}
      <VisuallyHidden> waiting</VisuallyHidden>
    </Badge>
  );
}
