import { Box, Button, Code, Group, Stack, Text, TextInput } from "@mantine/core";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { AuditEntry } from "@countersign/protocol/wire";
import { auditApi } from "../../api/audit.js";
import { useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { When } from "../../components/When.js";

const description =
  "Who did what in the organization, newest first: people, management keys and the Kubernetes operator.";

/** Who did what: the organization's audit log (owners and admins), newest first, filtered by action. */
export function AuditLogPage() {
  const { orgId, org } = useCurrentOrganization();
  const [action, setAction] = useState("");
  const mayAdminister = !!org && can.administer(org.role);
  const entries = useInfiniteQuery({
    queryKey: ["audit", orgId, action],
    queryFn: ({ pageParam }) => auditApi.page(orgId, { action, cursor: pageParam }),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled: mayAdminister,
  });
  if (!org) return <LoadingLine />;
  if (!mayAdminister)
    return (
      <Stack>
        <PageHeader title="Audit log" description={description} />
        <Text>Only owners and admins read the audit log.</Text>
      </Stack>
    );
  const items = entries.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Stack gap="md">
      <PageHeader title="Audit log" description={description} />
      <Box
        component="form"
        role="search"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setAction(String(new FormData(e.currentTarget).get("action") ?? "").trim());
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Action"
            name="action"
            placeholder="for example agent.created"
            description="The exact action, as in the table."
            defaultValue={action}
            maxLength={100}
          />
          <Button type="submit" variant="default">
            Filter
          </Button>
        </Group>
      </Box>
      {entries.isPending ? (
        <LoadingLine />
      ) : entries.isError ? (
        <ErrorNotice error={entries.error} />
      ) : (
        <DataTable<AuditEntry>
          testId="audit-log"
          caption="Audit log entries"
          rows={items}
          rowKey={(e) => e.id}
          empty={
            <EmptyState title={action ? `No entries with the action ${action}.` : "No entries yet."}>
              {action
                ? "Clear the filter to see every action."
                : "Changes people, keys and the operator make are listed here."}
            </EmptyState>
          }
          columns={[
            {
              key: "when",
              header: "When",
              align: "right",
              render: (e) => <When at={e.created_at} />,
              sortValue: (e) => e.created_at,
            },
            {
              key: "action",
              header: "Action",
              render: (e) => <Code>{e.action}</Code>,
              sortValue: (e) => e.action,
            },
            { key: "actor", header: "Actor", render: (e) => <ActorName actor={e.actor} /> },
            {
              key: "target",
              header: "Target",
              render: (e) => (e.target ? `${e.target.type} ${e.target.id ?? ""}` : ""),
            },
            {
              key: "details",
              header: "Details",
              render: (e) =>
                Object.keys(e.details).length > 0 && (
                  <Code style={{ wordBreak: "break-all" }}>{JSON.stringify(e.details)}</Code>
                ),
            },
          ]}
        />
      )}
      {entries.hasNextPage && (
        <Group>
          <Button
            variant="default"
            loading={entries.isFetchingNextPage}
            onClick={() => entries.fetchNextPage()}
          >
            Older entries
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** People by e-mail, keys by id, the Kubernetes operator by its ServiceAccount. */
function ActorName({ actor }: { actor: AuditEntry["actor"] }) {
  if (actor.type === "operator")
    return (
      <Text span inherit data-testid="operator-actor">
        Kubernetes operator <Code>{actor.label ?? actor.id}</Code>
      </Text>
    );
  if (actor.type === "api_key") return <>management key {actor.id}</>;
  return <>{actor.label ?? actor.id ?? actor.type}</>;
}
