import { Paper, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** What an empty list says instead: what is missing and the next step (a link or a button). */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <Paper withBorder p="lg" radius="md" data-testid="empty-state">
      <Stack gap="xs" align="flex-start">
        <Text fw={600}>{title}</Text>
        {children && (
          <Text c="dimmed" size="sm">
            {children}
          </Text>
        )}
        {action}
      </Stack>
    </Paper>
  );
}
