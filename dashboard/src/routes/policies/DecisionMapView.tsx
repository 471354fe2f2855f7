import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { NativeSelect, Stack, Text, Title } from "@mantine/core";
import type { DecisionMap, MapEntry } from "@countersign/protocol/policy";
import { policies, type PolicyDetail } from "../../api/policies.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { DecisionMapPicture } from "./DecisionMapPicture.js";
import { band, outcomeText } from "./decision-map-text.js";

type Row = { tool: string; action: string; entry: MapEntry; key: string };

/** The decision map of a version: for each tool of the organization, what it decides by amount band. */
export function DecisionMapView({ orgId, detail }: { orgId: string; detail: PolicyDetail }) {
  const { policy, versions } = detail;
  const [versionId, setVersionId] = useState(policy.active_version_id ?? versions[0]?.id ?? "");
  const map = useQuery({
    queryKey: ["decision-map", policy.id, versionId],
    queryFn: () => policies.decisionMap(orgId, policy.id, versionId),
    enabled: !!versionId,
  });
  return (
    <Stack gap="md" component="section" aria-labelledby="map-heading">
      <Title order={2} size="h3" id="map-heading">
        Decision map
      </Title>
      <Text size="sm" c="dimmed">
        What the version decides for each tool over the whole range of amounts, before any argument is known.
      </Text>
      <NativeSelect
        label="Version"
        maw={320}
        value={versionId}
        onChange={(e) => setVersionId(e.currentTarget.value)}
        data={versions.map((v) => ({ value: v.id, label: `Version ${v.number} (${v.status})` }))}
      />
      {versionId ? (
        <Loaded query={map}>{({ decision_map }) => <MapOfVersion map={decision_map} />}</Loaded>
      ) : (
        <EmptyState title="No version yet.">
          Write the document on the Document tab and save it as a draft.
        </EmptyState>
      )}
    </Stack>
  );
}

function MapOfVersion({ map }: { map: DecisionMap }) {
  const rows: Row[] = map.tools.flatMap((t) =>
    t.entries.map((entry, i) => ({ tool: t.tool, action: t.action, entry, key: `${t.tool}-${i}` })),
  );
  if (map.tools.length === 0)
    return (
      <EmptyState title="The organization has no tools yet.">
        Declare one on the MCP servers page; the map then shows what this version decides for it.
      </EmptyState>
    );
  return (
    <Stack gap="md">
      <DecisionMapPicture map={map} />
      <Title order={3} size="h4">
        Every band
      </Title>
      <DataTable<Row>
        testId="decision-map"
        rows={rows}
        rowKey={(r) => r.key}
        empty={<Text c="dimmed">No entries.</Text>}
        columns={[
          { key: "tool", header: "Tool", sortValue: (r) => r.tool, render: (r) => r.tool },
          { key: "action", header: "Action", render: (r) => r.action },
          { key: "amount", header: "Amount", render: (r) => band(r.entry.amount) },
          {
            key: "decision",
            header: "Decision",
            render: (r) =>
              r.entry.decision
                ? outcomeText(r.entry.decision)
                : `depends on the arguments: ${r.entry.possible.map(outcomeText).join(" or ")}`,
          },
        ]}
      />
    </Stack>
  );
}
