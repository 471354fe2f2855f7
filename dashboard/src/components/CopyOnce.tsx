import { Alert, Button, Code, CopyButton, Group, Stack, Text } from "@mantine/core";

/** A secret shown this once (a gateway key, a webhook signing secret), with a copy button. */
export function CopyOnce({
  label,
  secret,
  hint = "store it where the agent reads it.",
}: {
  label: string;
  secret: string;
  hint?: string;
}) {
  return (
    <Alert role="status" color="yellow" variant="light" title={label}>
      <Stack gap="xs">
        <Text size="sm">It is shown only now; {hint}</Text>
        <Group gap="sm" wrap="nowrap" align="center">
          <Code data-testid="secret" style={{ wordBreak: "break-all" }}>
            {secret}
          </Code>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button size="xs" variant={copied ? "light" : "filled"} onClick={copy}>
                {copied ? "Copied" : "Copy"}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}
