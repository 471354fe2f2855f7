import { Anchor, Group, Text, Timeline } from "@mantine/core";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge.js";
import { When } from "../../components/When.js";
import { orgPath } from "../../session/organization.js";
import type { TimelineEntry } from "./timeline.js";

/** The steps of timeline.ts as a vertical timeline, the current one last and highlighted. */
export function ActionTimeline({ orgId, entries }: { orgId: string; entries: TimelineEntry[] }) {
  return (
    <Timeline
      active={entries.length - 1}
      bulletSize={14}
      lineWidth={2}
      role="list"
      aria-label="State transitions"
      data-testid="action-timeline"
    >
      {entries.map((e) => (
        <Timeline.Item
          key={e.key}
          role="listitem"
          data-step={e.key}
          title={
            <Group gap="xs" wrap="wrap">
              <Text fw={600} size="sm" component="span">
                {e.title}
              </Text>
              <StatusBadge status={e.status} />
            </Group>
          }
        >
          <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>
            <When at={e.at} />
            {e.who && <> · {e.who}</>}
            {e.detail && <> · {e.detail}</>}
          </Text>
          {e.receipt && (
            <Anchor component={Link} to={orgPath(orgId, `/receipts/${e.receipt.id}`)} size="sm">
              {e.receipt.label}
            </Anchor>
          )}
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
