import { Alert, Code, Stack, Text } from "@mantine/core";
import type { ManagedBy } from "@countersign/protocol/wire";

/** `kubectl get` of the custom resource, which a person can paste. */
export const kubectlGet = (m: ManagedBy) =>
  `kubectl get ${m.kind.toLowerCase()}.countersign.dev/${m.name} -n ${m.namespace}`;

/**
 * Says that a Kubernetes custom resource manages this record (its operator wrote it), names the
 * resource, and warns whoever may edit it that the operator puts its spec back.
 */
export function KubernetesManaged({
  managedBy,
  editable,
}: {
  managedBy: ManagedBy | null | undefined;
  editable: boolean;
}) {
  if (!managedBy) return null;
  return (
    <Alert
      component="aside"
      role="complementary"
      color="blue"
      variant="light"
      title="Managed by Kubernetes"
      aria-label="Managed by Kubernetes"
      data-testid="managed-by"
      mb="md"
    >
      <Stack gap="xs">
        <Text size="sm">
          The {managedBy.kind} <Code data-testid="managed-by-name">{managedBy.name}</Code> in namespace{" "}
          <Code data-testid="managed-by-namespace">{managedBy.namespace}</Code> (kind{" "}
          <Code data-testid="managed-by-kind">{managedBy.kind}</Code>, countersign.dev/v1alpha1) writes this
          record.
        </Text>
        <Text size="sm">
          See it with <Code>{kubectlGet(managedBy)}</Code>
        </Text>
        {editable && (
          <Text size="sm" fw={500} role="note" data-testid="drift-warning">
            Changes made here are drift: the operator puts the resource&apos;s spec back at its next
            reconciliation. Change the {managedBy.kind} in Kubernetes (or in Git) instead.
          </Text>
        )}
      </Stack>
    </Alert>
  );
}
