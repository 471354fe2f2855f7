import { Text } from "@mantine/core";

/** An amount with its currency, in tabular digits so amounts in a column line up. */
export function Amount({ amount }: { amount: { value: string; currency: string } | null }) {
  return amount ? (
    <Text span inherit style={{ fontVariantNumeric: "tabular-nums" }}>
      {amount.value} {amount.currency}
    </Text>
  ) : (
    <Text span inherit c="dimmed">
      none
    </Text>
  );
}
