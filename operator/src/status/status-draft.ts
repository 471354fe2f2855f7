// The status one reconcile pass builds: starts from the stored status with this generation
// observed, collects conditions and fields, and is written once at the end, only if it changed
// (a status write is itself a watch event). `fail` is the common ending of a pass that cannot go
// on: Reconciled and Ready false with the reason, one Warning event when that is news.
// Every condition written carries the object's current generation: one this pass did not look at,
// and last set for an older generation, is written Unknown (NotEvaluated) rather than left saying
// what was true of a spec that no longer exists.
import type { ReconcileResult } from "../controller/controller.js";
import type { CustomObject, CustomObjects, StatusBase } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import { setCondition, type ConditionInput } from "./conditions.js";
import { failureOf } from "./failure.js";
import { writeStatusIfChanged } from "./write.js";

export interface StatusDraftDeps<Spec, Status extends StatusBase> {
  objects: CustomObjects<Spec, Status>;
  events: EventRecorder;
  now: () => Date;
}

export class StatusDraft<Spec, Status extends StatusBase> {
  status: Status;
  readonly generation: number;
  private readonly touched = new Set<string>();

  constructor(
    private readonly deps: StatusDraftDeps<Spec, Status>,
    private readonly object: CustomObject<Spec, Status>,
  ) {
    this.generation = object.metadata?.generation ?? 0;
    this.status = { ...(object.status ?? {}), observedGeneration: this.generation } as Status;
  }

  set(condition: ConditionInput): void {
    this.touched.add(condition.type);
    this.status = {
      ...this.status,
      conditions: setCondition(this.status.conditions, condition, this.generation, this.deps.now()),
    };
  }

  update(fields: Partial<Status>): void {
    this.status = { ...this.status, ...fields };
  }

  /** This pass found that the condition of `type` still holds as stored: stamped with this generation. */
  keep(type: string): void {
    const found = this.status.conditions?.find((c) => c.type === type);
    if (found) this.set(found);
  }

  /** Writes the status if it differs from the stored one; true when it wrote. */
  write(): Promise<boolean> {
    for (const c of this.status.conditions ?? []) {
      if (this.touched.has(c.type) || c.observedGeneration === this.generation) continue;
      const reason = this.status.conditions?.find(
        (x) => x.type === "Reconciled" && this.touched.has("Reconciled"),
      );
      this.set({
        type: c.type,
        status: "Unknown",
        reason: "NotEvaluated",
        message: `not evaluated for generation ${this.generation}${reason && reason.status === "False" ? `: ${reason.reason}` : ""}`,
      });
    }
    return writeStatusIfChanged(this.deps.objects, this.object, this.status);
  }

  /** Ends a pass that cannot go on, to be looked at again after `requeueAfterMs` if given. */
  async fail(reason: string, message: string, requeueAfterMs?: number): Promise<ReconcileResult | undefined> {
    this.set({ type: "Reconciled", status: "False", reason, message });
    this.set({ type: "Ready", status: "False", reason, message });
    if (await this.write()) await this.deps.events.record(this.object, "Warning", reason, message);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /**
   * Ends a pass the Cloud API refused (or could not serve), with the reason failureOf gives:
   * `Refused` with the code and issues, `BindingMissing`, `PolicyInvalid`, ... A refusal only a
   * change of the spec or a person fixes is looked at again after `requeueAfterMs`.
   */
  refused(
    error: unknown,
    organizationId?: string,
    requeueAfterMs = 60_000,
  ): Promise<ReconcileResult | undefined> {
    const { reason, message } = failureOf(error, organizationId);
    return this.fail(reason, message, requeueAfterMs);
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
