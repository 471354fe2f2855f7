// Writes a status only when it differs from what is stored: a status write is itself a watch event,
// and writing an identical status on every reconcile would loop forever.
import { isDeepStrictEqual } from "node:util";
import type { CustomObject, CustomObjects, StatusBase } from "../kube/custom-objects.js";

export async function writeStatusIfChanged<Spec, Status extends StatusBase>(
  objects: CustomObjects<Spec, Status>,
  object: CustomObject<Spec, Status>,
  status: Status,
): Promise<boolean> {
  const clean = JSON.parse(JSON.stringify(status)) as Status; // drop undefined members, as the apiserver would
  if (isDeepStrictEqual(object.status ?? {}, clean)) return false;
  await objects.writeStatus(object, clean);
  return true;
}
