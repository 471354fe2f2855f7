import { Anchor, Box, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import type { Approval } from "@countersign/protocol/wire";
import { approvalsApi, decidableBy, QUEUE_REFRESH_MS } from "../../api/approvals.js";
import { identitiesApi } from "../../api/me.js";
import { policies, policyKeys } from "../../api/policies.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { useSignedIn } from "../../session/session.js";
import { Amount } from "../../components/Amount.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { NoApprovers } from "../policies/NoApprovers.js";

/**
 * The queue of pending requests. It is read again every few seconds while the page is visible
 * (the same query as the navigation's count), so a call held at the Gateway shows without a reload.
 */
export function ApprovalsPage() {
  const { orgId, org } = useCurrentOrganization();
  const session = useSignedIn();
  const queue = useQuery(approvalsApi.pendingQuery(orgId));
  const mine = useQuery({ queryKey: ["identities", session.user.id], queryFn: identitiesApi.list });
  const kids = new Set(mine.data?.items.filter((i) => i.status === "active").map((i) => i.kid));
  // Calls no one can approve never wait here: they are denied NO_APPROVERS. Said above the queue.
  const status = useQuery({ queryKey: policyKeys.status(orgId), queryFn: () => policies.status(orgId) });
  const columns: Column<Approval>[] = [
    {
      key: "agent",
      header: "Agent",
      sortValue: (a) => a.action?.agent?.name,
      render: (a) => (
        <Anchor component={Link} to={orgPath(orgId, `/approvals/${a.id}`)}>
          {a.action?.agent?.name ?? "?"}
        </Anchor>
      ),
    },
    { key: "tool", header: "Tool", sortValue: (a) => a.action?.tool, render: (a) => a.action?.tool },
    { key: "action", header: "Action", render: (a) => a.action?.action },
    {
      key: "amount",
      header: "Amount",
      align: "right",
      sortValue: (a) => (a.action?.amount ? Number(a.action.amount.value) : null),
      render: (a) => <Amount amount={a.action?.amount ?? null} />,
    },
    {
      key: "who",
      header: "Who decides",
      render: (a) =>
        a.approvers_left === 0 ? (
          <Text span size="sm" fw={600} data-testid="row-no-one-can-decide">
            No one can decide it any more
          </Text>
        ) : decidableBy(a, kids) ? (
          <StatusBadge status="pending" label="you can decide" />
        ) : (
          <Text span size="sm" c="dimmed">
            {a.roles.join(", ")}
          </Text>
        ),
    },
    {
      key: "created",
      header: "Waiting since",
      align: "right",
      sortValue: (a) => a.created_at,
      render: (a) => <When at={a.created_at} />,
    },
    {
      key: "expires",
      header: "Expires",
      align: "right",
      sortValue: (a) => a.expires_at,
      render: (a) => <When at={a.expires_at} />,
    },
  ];
  return (
    <Stack gap="md">
      <PageHeader
        title="Approvals"
        description={`Calls held for a person's decision, newest first. This list updates by itself every ${QUEUE_REFRESH_MS / 1000} seconds; open a request to read the exact call and decide it.`}
      />
      {status.data && <NoApprovers orgId={orgId} items={status.data.items} role={org?.role} />}
      <Loaded query={queue}>
        {(page) => (
          <DataTable
            testId="approval-queue"
            caption="Pending approval requests"
            rows={page.items}
            columns={columns}
            rowKey={(a) => a.id}
            empty={
              <Box data-testid="queue-empty">
                <EmptyState
                  title="Nothing is waiting for a decision."
                  action={
                    <Anchor component={Link} to={orgPath(orgId, "/actions")} size="sm">
                      See the calls already decided under Actions
                    </Anchor>
                  }
                >
                  A call your policies hold for approval shows here as soon as the agent makes it.
                </EmptyState>
              </Box>
            }
          />
        )}
      </Loaded>
    </Stack>
  );
}
