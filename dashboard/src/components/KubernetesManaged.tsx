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
    <aside className="managed" aria-label="Managed by Kubernetes" data-testid="managed-by">
      <p>
        <strong>Managed by Kubernetes:</strong> the {managedBy.kind}{" "}
        <code data-testid="managed-by-name">{managedBy.name}</code> in namespace{" "}
        <code data-testid="managed-by-namespace">{managedBy.namespace}</code> (kind{" "}
        <code data-testid="managed-by-kind">{managedBy.kind}</code>, countersign.dev/v1alpha1).
      </p>
      <p className="muted">
        See it with <code>{kubectlGet(managedBy)}</code>
      </p>
      {editable && (
        <p className="warning" role="note" data-testid="drift-warning">
          Changes made here are drift: the operator puts the resource&apos;s spec back at its next
          reconciliation. Change the {managedBy.kind} in Kubernetes (or in Git) instead.
        </p>
      )}
    </aside>
  );
}
