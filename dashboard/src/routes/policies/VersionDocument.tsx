import { useQuery } from "@tanstack/react-query";
import { Button, Code, Group, Paper, ScrollArea, Stack, Text, Title } from "@mantine/core";
import { policies, type PolicyVersion } from "../../api/policies.js";
import { Loaded } from "../../components/Loading.js";

/**
 * One version's whole document, read-only, whatever its status: the policy's read carries only the
 * active, shadow and newest draft documents, so a superseded one (what a rollback would restore,
 * or what an old decision was made under) is fetched by its own route.
 */
export function VersionDocument({
  orgId,
  policyId,
  version,
  onClose,
}: {
  orgId: string;
  policyId: string;
  version: PolicyVersion;
  onClose: () => void;
}) {
  const doc = useQuery({
    queryKey: ["policy-version", policyId, version.id],
    queryFn: () => policies.version(orgId, policyId, version.id),
    staleTime: Infinity, // a version's document never changes
  });
  const heading = `version-${version.number}-document`;
  return (
    <Paper
      withBorder
      p="md"
      component="section"
      aria-labelledby={heading}
      data-testid="version-document"
      data-document-version={version.number}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h4" id={heading}>
            Document of version {version.number} ({version.status})
          </Title>
          <Button variant="default" size="xs" onClick={onClose}>
            Hide the document
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          Digest <Code>{version.digest}</Code>
        </Text>
        <Loaded query={doc}>
          {({ version: v }) => (
            <ScrollArea.Autosize
              mah={480}
              type="auto"
              tabIndex={0}
              aria-label={`Document of version ${version.number}`}
            >
              <Code block>{JSON.stringify(v.document, null, 2)}</Code>
            </ScrollArea.Autosize>
          )}
        </Loaded>
      </Stack>
    </Paper>
  );
}
