// The status one reconcile pass builds: starts from the stored status with this generation
// observed, collects conditions and fields, and is written once at the end, only if it changed
// (a status write is itself a watch event). `fail` is the common ending of a pass that cannot go
// on: Reconciled and Ready false with the reason, one Warning event when that is news.
import type { ReconcileResult } from "../controller/controller.js";
import type { CustomObject, CustomObjects, StatusBase } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import { setCondition, type ConditionInput } from "./conditions.js";
import { writeStatusIfChanged } from "./write.js";

export interface StatusDraftDeps<Spec, Status extends StatusBase> {
  objects: CustomObjects<Spec, Status>;
  events: EventRecorder;
  now: () => Date;
}

export class StatusDraft<Spec, Status extends StatusBase> {
  status: Status;
  readonly generation: number;

  constructor(
    private readonly deps: StatusDraftDeps<Spec, Status>,
    private readonly object: CustomObject<Spec, Status>,
  ) {
    this.generation = object.metadata?.generation ?? 0;
    this.status = { ...(object.status ?? {}), observedGeneration: this.generation } as Status;
  }

  set(condition: ConditionInput): void {
    this.status = {
      ...this.status,
      conditions: setCondition(this.status.conditions, condition, this.generation, this.deps.now()),
    };
  }

  update(fields: Partial<Status>): void {
    this.status = { ...this.status, ...fields };
  }

  /** Writes the status if it differs from the stored one; true when it wrote. */
  write(): Promise<boolean> {
    return writeStatusIfChanged(this.deps.objects, this.object, this.status);
  }

  /** Ends a pass that cannot go on, to be looked at again after `requeueAfterMs` if given. */
  async fail(reason: string, message: string, requeueAfterMs?: number): Promise<ReconcileResult | undefined> {
    this.set({ type: "Reconciled", status: "False", reason, message });
    this.set({ type: "Ready", status: "False", reason, message });
    if (await this.write()) await this.deps.events.record(this.object, "Warning", reason, message);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /** Reconciled true with `message`; Ready as given (true with the same message by default). */
  synced(
    message: string,
    ready: Omit<ConditionInput, "type"> = { status: "True", reason: "Synced", message },
  ) {
    this.set({ type: "Reconciled", status: "True", reason: "Synced", message });
    this.set({ type: "Ready", ...ready });
  }
}
