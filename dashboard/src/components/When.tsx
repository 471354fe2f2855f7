import { Text } from "@mantine/core";

/** A time as the person's browser writes it, with the exact instant on hover. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at)
    return (
      <Text span c="dimmed" inherit>
        —
      </Text>
    );
  return (
    <Text span inherit component="time" dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </Text>
  );
}
