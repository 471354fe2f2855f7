import { Table, UnstyledButton, Group, Text, VisuallyHidden } from "@mantine/core";
import { useMemo, useState, type ReactNode } from "react";

export interface Column<T> {
  key: string;
  header: ReactNode;
  render: (row: T) => ReactNode;
  /** Numbers, amounts and times are right-aligned so their digits line up. */
  align?: "left" | "right" | "center";
  /** When given, the column sorts by this value (the header becomes a button). */
  sortValue?: (row: T) => string | number | null | undefined;
}

type Sort = { key: string; descending: boolean } | null;

/**
 * The dashboard's table: sortable columns (aria-sort on the header), aligned cells, and the empty
 * state in place of the table when there are no rows, naming the next step.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  empty,
  caption,
  defaultSort = null,
  testId,
}: {
  rows: readonly T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  empty: ReactNode;
  /** Read by screen readers; hidden on screen where a heading already says it. */
  caption?: string;
  defaultSort?: Sort;
  testId?: string;
}) {
  const [sort, setSort] = useState<Sort>(defaultSort);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const column = columns.find((c) => c.key === sort.key);
    if (!column?.sortValue) return rows;
    const value = column.sortValue;
    const out = [...rows].sort((a, b) => compare(value(a), value(b)));
    return sort.descending ? out.reverse() : out;
  }, [rows, columns, sort]);
  if (rows.length === 0) return <>{empty}</>;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table data-testid={testId}>
        {caption && (
          <caption>
            <VisuallyHidden>{caption}</VisuallyHidden>
          </caption>
        )}
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => {
              const active = sort?.key === c.key;
              return (
                <Table.Th
                  key={c.key}
                  ta={c.align ?? "left"}
                  aria-sort={
                    active ? (sort.descending ? "descending" : "ascending") : c.sortValue ? "none" : undefined
                  }
                >
                  {c.sortValue ? (
                    <UnstyledButton
                      onClick={() => setSort({ key: c.key, descending: active ? !sort.descending : false })}
                    >
                      <Group gap={4} justify={c.align === "right" ? "flex-end" : "flex-start"} wrap="nowrap">
                        <Text fw={600} size="sm" component="span">
                          {c.header}
                        </Text>
                        <Text size="xs" c="dimmed" component="span" aria-hidden>
                          {active ? (sort.descending ? "▼" : "▲") : "↕"}
                        </Text>
                      </Group>
                    </UnstyledButton>
                  ) : (
                    c.header
                  )}
                </Table.Th>
              );
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.key} ta={c.align ?? "left"}>
                  {c.render(row)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function compare(a: string | number | null | undefined, b: string | number | null | undefined): number {
  if (a == null) return b == null ? 0 : 1;
  if (b == null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}
