import { Alert, Code, Paper, Stack, Text } from "@mantine/core";
import type { BundleCheck } from "../../crypto/bundle-check.js";
import { VerificationChecks } from "./VerificationChecks.js";

/**
 * What this browser found in a bundle file: its SHA-256 (compared with the hash the service
 * recorded, when there is one) and every check, or why the file could not be read.
 */
export function LocalVerification({ check, recorded }: { check: BundleCheck; recorded?: string }) {
  return (
    <Paper withBorder p="md" data-testid="local-verification">
      <Stack gap="sm">
        <Text size="sm">
          File SHA-256 <Code data-testid="file-sha256">{check.sha256}</Code>
          {recorded !== undefined &&
            (check.sha256 === recorded
              ? " (the hash the service recorded)"
              : " (differs from the hash the service recorded)")}
        </Text>
        {check.unreadable ? (
          <Alert color="red" p="xs" role="note">
            This file cannot be verified: {check.unreadable}.
          </Alert>
        ) : (
          check.result && <VerificationChecks testId="browser-verification" result={check.result} />
        )}
      </Stack>
    </Paper>
  );
}
