import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button, Code, Group, List, NativeSelect, Stack, Text, Title } from "@mantine/core";
import type { PolicyDiff } from "@countersign/protocol/policy";
import { policies, type PolicyDetail, type PolicyVersion } from "../../api/policies.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { VersionDocument } from "./VersionDocument.js";

/** Every version with its status and note, newest first, and a diff between any two. */
export function VersionsPanel({
  orgId,
  detail,
  mayActivate,
  onActivate,
}: {
  orgId: string;
  detail: PolicyDetail;
  mayActivate: boolean;
  onActivate: (v: PolicyVersion) => void;
}) {
  const { policy, versions } = detail;
  const [from, setFrom] = useState(versions[1]?.id ?? versions[0]?.id ?? "");
  const [to, setTo] = useState(versions[0]?.id ?? "");
  const [shown, setShown] = useState<PolicyVersion | null>(null);
  return (
    <Stack gap="md" component="section" aria-labelledby="versions-heading">
      <Title order={2} size="h3" id="versions-heading">
        Versions
      </Title>
      <DataTable<PolicyVersion>
        testId="versions"
        caption="Versions"
        rows={versions}
        rowKey={(v) => v.id}
        empty={
          <EmptyState title="No version yet.">
            Write the document on the Document tab and save it as a draft version.
          </EmptyState>
        }
        columns={[
          {
            key: "number",
            header: "Version",
            align: "right",
            sortValue: (v) => v.number,
            render: (v) => (
              <Text span inherit data-version={v.number} data-status={v.status}>
                {v.number}
              </Text>
            ),
          },
          {
            key: "status",
            header: "Status",
            sortValue: (v) => v.status,
            render: (v) => (
              <Group gap={4}>
                <StatusBadge status={v.status} />
                {v.id === policy.shadow_version_id && <StatusBadge status="shadow" />}
              </Group>
            ),
          },
          {
            key: "note",
            header: "Note",
            render: (v) =>
              v.note ?? (
                <Text span c="dimmed" inherit>
                  none
                </Text>
              ),
          },
          { key: "origin", header: "Origin", render: (v) => v.origin.replaceAll("_", " ") },
          {
            key: "created",
            header: "Created",
            align: "right",
            sortValue: (v) => v.created_at,
            render: (v) => <When at={v.created_at} />,
          },
          {
            key: "actions",
            header: (
              <Text span inherit>
                Actions
              </Text>
            ),
            render: (v) => (
              <Group gap={4} wrap="nowrap">
                <Button
                  size="compact-sm"
                  variant={shown?.id === v.id ? "light" : "default"}
                  aria-pressed={shown?.id === v.id}
                  onClick={() => setShown(v)}
                >
                  Show version {v.number}
                </Button>
                {mayActivate && v.status === "draft" && (
                  <Button size="compact-sm" onClick={() => onActivate(v)}>
                    Activate version {v.number}
                  </Button>
                )}
              </Group>
            ),
          },
        ]}
      />
      {shown && (
        <VersionDocument orgId={orgId} policyId={policy.id} version={shown} onClose={() => setShown(null)} />
      )}
      {versions.length > 1 && (
        <Stack gap="sm">
          <Title order={3} size="h4">
            Compare two versions
          </Title>
          <Group gap="sm">
            <VersionSelect label="From" value={from} onChange={setFrom} versions={versions} />
            <VersionSelect label="To" value={to} onChange={setTo} versions={versions} />
          </Group>
          {from && to && (
            <VersionDiff orgId={orgId} policyId={policy.id} from={from} to={to} versions={versions} />
          )}
        </Stack>
      )}
    </Stack>
  );
}

function VersionSelect({
  label,
  value,
  onChange,
  versions,
}: {
  label: string;
  value: string;
  onChange: (id: string) => void;
  versions: PolicyVersion[];
}) {
  return (
    <NativeSelect
      label={label}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      data={versions.map((v) => ({ value: v.id, label: `Version ${v.number} (${v.status})` }))}
    />
  );
}

function VersionDiff({
  orgId,
  policyId,
  from,
  to,
  versions,
}: {
  orgId: string;
  policyId: string;
  from: string;
  to: string;
  versions: PolicyVersion[];
}) {
  const diff = useQuery({
    queryKey: ["diff", policyId, from, to],
    queryFn: () => policies.diff(orgId, policyId, from, to),
  });
  const n = (id: string) => versions.find((v) => v.id === id)?.number;
  return (
    <div data-testid="diff" aria-live="polite">
      <Loaded query={diff}>{({ diff: d }) => <DiffText diff={d} from={n(from)} to={n(to)} />}</Loaded>
    </div>
  );
}

function DiffText({ diff: d, from, to }: { diff: PolicyDiff; from?: number; to?: number }) {
  if (d.identical)
    return (
      <Text size="sm">
        Versions {from} and {to} have the same document.
      </Text>
    );
  return (
    <List size="sm" spacing={4}>
      {d.revision && (
        <List.Item>
          Language revision {d.revision.from} → {d.revision.to}
        </List.Item>
      )}
      {d.default_changed.length > 0 && <List.Item>Default changed: {d.default_changed.join(", ")}</List.Item>}
      {d.added.map((r) => (
        <List.Item key={`a${r.rule_id}`}>
          <Text span inherit fw={600}>
            Added
          </Text>{" "}
          rule <Code>{r.rule_id}</Code> ({r.effect}) at position {r.index + 1}
        </List.Item>
      ))}
      {d.removed.map((r) => (
        <List.Item key={`r${r.rule_id}`}>
          <Text span inherit fw={600}>
            Removed
          </Text>{" "}
          rule <Code>{r.rule_id}</Code> ({r.effect})
        </List.Item>
      ))}
      {d.changed.map((r) => (
        <List.Item key={`c${r.rule_id}`}>
          Changed rule <Code>{r.rule_id}</Code>: {r.fields.join(", ")}
        </List.Item>
      ))}
      {d.moved.map((r) => (
        <List.Item key={`m${r.rule_id}`}>
          Moved rule <Code>{r.rule_id}</Code> from position {r.from_index + 1} to {r.to_index + 1}
        </List.Item>
      ))}
    </List>
  );
}
