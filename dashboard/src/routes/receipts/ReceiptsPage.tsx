import { Anchor, NativeSelect, Stack } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import type { ReceiptListItem } from "@countersign/protocol/wire";
import { receiptsApi } from "../../api/receipts.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";

const outcomes = ["succeeded", "failed", "final", "pending", "granted"];

/** Receipts, newest first, filtered by outcome (in the address, so a view can be shared). */
export function ReceiptsPage() {
  const { orgId } = useCurrentOrganization();
  const [params, setParams] = useSearchParams();
  const outcome = params.get("outcome") ?? "";
  const receipts = useQuery(receiptsApi.listQuery(orgId, outcome));
  const columns: Column<ReceiptListItem>[] = [
    {
      key: "issued",
      header: "Issued",
      sortValue: (r) => r.created_at,
      render: (r) => (
        <Anchor component={Link} to={orgPath(orgId, `/receipts/${r.id}`)}>
          <When at={r.created_at} />
        </Anchor>
      ),
    },
    { key: "kind", header: "Kind", sortValue: (r) => r.kind, render: (r) => r.kind },
    {
      key: "outcome",
      header: "Outcome",
      sortValue: (r) => r.outcome,
      render: (r) => <StatusBadge status={r.outcome} />,
    },
    {
      key: "agent",
      header: "Agent",
      sortValue: (r) => r.action?.agent?.name,
      render: (r) => r.action?.agent?.name,
    },
    { key: "tool", header: "Tool", sortValue: (r) => r.action?.tool, render: (r) => r.action?.tool },
  ];
  return (
    <Stack gap="md">
      <PageHeader
        title="Receipts"
        description="Signed evidence of every decided call: download a receipt's bundle and verify it yourself, here or offline."
        actions={
          <Anchor component={Link} to="/verify" size="sm">
            Verify a bundle file
          </Anchor>
        }
      />
      <NativeSelect
        label="Outcome"
        maw={240}
        value={outcome}
        onChange={(e) => setParams(e.currentTarget.value ? { outcome: e.currentTarget.value } : {})}
        data={[{ value: "", label: "any" }, ...outcomes]}
      />
      <Loaded query={receipts}>
        {(page) => (
          <DataTable
            testId="receipts"
            caption="Receipts"
            rows={page.items}
            columns={columns}
            rowKey={(r) => r.id}
            empty={
              outcome ? (
                <EmptyState
                  title={`No receipt has the outcome ${outcome}.`}
                  action={
                    <Anchor component={Link} to={orgPath(orgId, "/receipts")} size="sm">
                      Show every receipt
                    </Anchor>
                  }
                />
              ) : (
                <EmptyState
                  title="No receipt yet."
                  action={
                    <Anchor component={Link} to={orgPath(orgId, "/actions")} size="sm">
                      See the calls under Actions
                    </Anchor>
                  }
                >
                  A receipt is issued when a call is settled: run, refused by a person, cancelled, or
                  authorized for the caller to run.
                </EmptyState>
              )
            }
          />
        )}
      </Loaded>
    </Stack>
  );
}
