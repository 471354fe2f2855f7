import { Text } from "@mantine/core";
import type { McpServer } from "@countersign/protocol/wire";

/** Whether an authorization header is stored: the header itself is write-only and never shown. */
export function CredentialState({ credential }: { credential: McpServer["credential"] }) {
  if (!credential)
    return (
      <Text span c="dimmed" size="sm">
        not applicable
      </Text>
    );
  return credential.configured ? (
    <Text span size="sm" data-testid="credential-state">
      configured (version {credential.version})
    </Text>
  ) : (
    <Text span c="dimmed" size="sm" data-testid="credential-state">
      not configured
    </Text>
  );
}
