import { Group, Loader, Text } from "@mantine/core";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorNotice } from "./ErrorNotice.js";

/** "Loading…" with a spinner, the same everywhere. */
export function LoadingLine() {
  return (
    <Group gap="xs">
      <Loader size="xs" />
      <Text c="dimmed" size="sm">
        Loading…
      </Text>
    </Group>
  );
}

/** Renders a query's data, or its loading state or error. */
export function Loaded<T>({
  query,
  children,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingLine />;
  if (query.isError) return <ErrorNotice error={query.error} />;
  return <>{children(query.data)}</>;
}
