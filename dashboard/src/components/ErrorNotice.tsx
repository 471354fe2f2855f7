import { Alert, Text } from "@mantine/core";
import { messageOf } from "../api/errors.js";

/** An error as a person reads it, with its code for support. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const { code, text } = messageOf(error);
  return (
    <Alert color="red" variant="light" role="alert" data-code={code} p="xs">
      <Text size="sm" component="span">
        {text}{" "}
        <Text span size="xs" c="dimmed" ff="monospace">
          ({code})
        </Text>
      </Text>
    </Alert>
  );
}
