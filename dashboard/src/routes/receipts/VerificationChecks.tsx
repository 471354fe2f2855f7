import { Alert, Group, List, Stack, Text } from "@mantine/core";
import type { VerificationResult } from "../../crypto/evidence.js";
import { StatusBadge } from "../../components/StatusBadge.js";

/**
 * Every check of a verification as a pass/fail list, then its errors and warnings. Each check
 * carries its name and result as data attributes too (`data-check`, `data-passed`), so what a
 * person reads and what a test compares with the CLI's result are the same list.
 */
export function VerificationChecks({ result, testId }: { result: VerificationResult; testId: string }) {
  return (
    <Stack gap="sm" data-testid={testId} data-valid={String(result.valid)}>
      <Group gap="xs">
        <StatusBadge status={result.valid ? "valid" : "invalid"} />
        <Text size="sm" fw={600}>
          {result.valid
            ? "Every check passed and no signer equivocated."
            : `${result.checks.filter((c) => !c.passed).length} of ${result.checks.length} checks failed.`}
        </Text>
      </Group>
      <List listStyleType="none" spacing={4} aria-label="Checks">
        {result.checks.map((c) => (
          <List.Item key={c.name} data-check={c.name} data-passed={String(c.passed)}>
            <Group gap="xs" wrap="nowrap">
              <StatusBadge status={c.passed ? "valid" : "invalid"} label={c.passed ? "passed" : "failed"} />
              <Text size="sm" ff="monospace">
                {c.name}
              </Text>
            </Group>
          </List.Item>
        ))}
      </List>
      {result.errors.map((e, i) => (
        <Alert key={i} color="red" p="xs" role="note" data-error-code={e.code}>
          <Text size="sm">
            <Text span ff="monospace" fw={600}>
              {e.code}
            </Text>
            : {e.message}
          </Text>
        </Alert>
      ))}
      {result.warnings.map((w, i) => (
        <Text key={i} size="sm" c="dimmed">
          Warning {w.code}: {w.message}
        </Text>
      ))}
    </Stack>
  );
}
