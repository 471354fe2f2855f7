// The operator's finalizer: while it is on an object, Kubernetes keeps the object (with a
// deletionTimestamp) until the operator has removed the Cloud API side.
import type { CustomObject, CustomObjects, StatusBase } from "./custom-objects.js";

export const finalizer = "countersign.dev/finalizer";

export function hasFinalizer(object: { metadata?: { finalizers?: string[] } }): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

export async function addFinalizer<S, T extends StatusBase>(
  objects: CustomObjects<S, T>,
  object: CustomObject<S, T>,
): Promise<void> {
  await objects.replace({
    ...object,
    metadata: { ...object.metadata, finalizers: [...(object.metadata?.finalizers ?? []), finalizer] },
  });
}

export async function removeFinalizer<S, T extends StatusBase>(
  objects: CustomObjects<S, T>,
  object: CustomObject<S, T>,
): Promise<void> {
  await objects.replace({
    ...object,
    metadata: {
      ...object.metadata,
      finalizers: (object.metadata?.finalizers ?? []).filter((f) => f !== finalizer),
    },
  });
}
