import { Code, ScrollArea } from "@mantine/core";

/**
 * JSON as the API answered it, in a scrolling block that keyboard users can focus and scroll
 * (a named region, so a screen reader says what it holds).
 */
export function JsonBlock({ value, label, testId }: { value: unknown; label: string; testId?: string }) {
  return (
    <ScrollArea.Autosize mah={420} type="auto" offsetScrollbars>
      <Code block tabIndex={0} role="region" aria-label={label} data-testid={testId}>
        {JSON.stringify(value, null, 2)}
      </Code>
    </ScrollArea.Autosize>
  );
}
