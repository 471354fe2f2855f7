import { Anchor, Group, NativeSelect, Stack, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { actionStatuses, type Action } from "@countersign/protocol/wire";
import { actionsApi } from "../../api/actions.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { Amount } from "../../components/Amount.js";
import { DataTable, type Column } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";

/** Protected actions, filtered by status, agent or tool (the filters live in the address, so a view can be shared). */
export function ActionsPage() {
  const { orgId } = useCurrentOrganization();
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(
    ["status", "tool", "agent_id"].map((k) => [k, params.get(k) || undefined]),
  );
  const filtered = Object.values(filter).some(Boolean);
  const actions = useQuery(actionsApi.listQuery(orgId, filter));
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next);
  };
  const columns: Column<Action>[] = [
    {
      key: "when",
      header: "When",
      sortValue: (a) => a.created_at,
      render: (a) => (
        <Anchor component={Link} to={orgPath(orgId, `/actions/${a.id}`)}>
          <When at={a.created_at} />
        </Anchor>
      ),
    },
    { key: "agent", header: "Agent", sortValue: (a) => a.agent?.name, render: (a) => a.agent?.name },
    { key: "tool", header: "Tool", sortValue: (a) => a.tool, render: (a) => a.tool },
    {
      key: "amount",
      header: "Amount",
      align: "right",
      sortValue: (a) => (a.amount ? Number(a.amount.value) : null),
      render: (a) => <Amount amount={a.amount} />,
    },
    {
      key: "status",
      header: "Status",
      sortValue: (a) => a.status,
      render: (a) => <StatusBadge status={a.status} testId="action-status" />,
    },
  ];
  return (
    <Stack gap="md">
      <PageHeader
        title="Actions"
        description="Every call your agents asked to make, newest first: what was decided, and what happened since. Open one for its timeline."
      />
      <Group gap="md" align="flex-end">
        <NativeSelect
          label="Status"
          value={params.get("status") ?? ""}
          onChange={(e) => set("status", e.currentTarget.value)}
          data={[
            { value: "", label: "any" },
            ...actionStatuses.map((s) => ({ value: s, label: s.replace(/_/g, " ") })),
          ]}
        />
        <TextInput
          label="Tool"
          description="Press Enter to filter"
          defaultValue={params.get("tool") ?? ""}
          onBlur={(e) => set("tool", e.currentTarget.value.trim())}
          onKeyDown={(e) => e.key === "Enter" && set("tool", e.currentTarget.value.trim())}
        />
      </Group>
      <Loaded query={actions}>
        {(page) => (
          <DataTable
            testId="actions"
            caption="Protected actions"
            rows={page.items}
            columns={columns}
            rowKey={(a) => a.id}
            empty={
              filtered ? (
                <EmptyState
                  title="No action matches these filters."
                  action={
                    <Anchor component={Link} to={orgPath(orgId, "/actions")} size="sm">
                      Show every action
                    </Anchor>
                  }
                />
              ) : (
                <EmptyState
                  title="No agent has asked to act yet."
                  action={
                    <Anchor component={Link} to={orgPath(orgId, "/agents")} size="sm">
                      Give an agent a gateway key on the Agents page
                    </Anchor>
                  }
                >
                  Each call an agent makes through the Gateway is listed here with its decision.
                </EmptyState>
              )
            }
          />
        )}
      </Loaded>
    </Stack>
  );
}
