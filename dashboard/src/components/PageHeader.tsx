import { Group, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A page's title (its one h1), a sentence on what the page is for, and the page's main actions. */
export function PageHeader({
  title,
  description,
  actions,
  badge,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** A state shown next to the title (a StatusBadge). */
  badge?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" mb="md" wrap="wrap">
      <Stack gap={4}>
        <Group gap="sm">
          <Title order={1} size="h2">
            {title}
          </Title>
          {badge}
        </Group>
        {description && (
          <Text c="dimmed" size="sm" maw={720}>
            {description}
          </Text>
        )}
      </Stack>
      {actions && <Group gap="sm">{actions}</Group>}
    </Group>
  );
}
