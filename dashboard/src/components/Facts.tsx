import { Box, Text } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * Named facts of one thing (an action's agent, tool, amount…), as a description list whose terms
 * line up. `testId` on a fact goes on its value, so tests and people read the same text.
 */
export function Facts({
  items,
}: {
  items: { term: ReactNode; value: ReactNode; testId?: string; hidden?: boolean }[];
}) {
  return (
    <Box
      component="dl"
      m={0}
      style={{
        display: "grid",
        gridTemplateColumns: "max-content 1fr",
        columnGap: "var(--mantine-spacing-lg)",
        rowGap: 6,
      }}
    >
      {items
        .filter((i) => !i.hidden)
        .flatMap((i, n) => [
          <Text component="dt" key={`t${n}`} c="dimmed" size="sm">
            {i.term}
          </Text>,
          <Text component="dd" key={`v${n}`} size="sm" m={0} data-testid={i.testId}>
            {i.value}
          </Text>,
        ])}
    </Box>
  );
}
