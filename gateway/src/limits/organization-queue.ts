/**
 * Calls of one organization in progress at once, per Gateway (SPEC 8.2):
 * each organization gets at most `perOrganization` slots, so a busy
 * organization cannot take the whole Gateway from the others (fairness by
 * isolation). Further calls wait in that organization's FIFO queue, at most
 * `maxWaiting` of them, each at most `maxWaitMs`; beyond either the call is
 * refused GATEWAY_BUSY (retryable, nothing recorded). A call waiting for an
 * approval or an upstream gives its slot back meanwhile (`release` early).
 */
export interface QueueOptions {
  perOrganization: number;
  maxWaiting: number;
  maxWaitMs: number;
}

export const defaultQueueOptions: QueueOptions = { perOrganization: 32, maxWaiting: 1000, maxWaitMs: 30_000 };

export type Slot = { release: () => void };

interface Lane {
  running: number;
  waiting: Array<(slot: Slot | undefined) => void>;
}

export class OrganizationQueue {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly opts: QueueOptions = defaultQueueOptions) {}

  /** A slot, or undefined when the organization's queue is full or the wait ran out (GATEWAY_BUSY). */
  acquire(organizationId: string): Promise<Slot | undefined> {
    let lane = this.lanes.get(organizationId);
    if (!lane) this.lanes.set(organizationId, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.opts.perOrganization) {
      lane.running++;
      return Promise.resolve(this.slot(organizationId, lane));
    }
    if (lane.waiting.length >= this.opts.maxWaiting) return Promise.resolve(undefined);
    const l = lane;
    return new Promise((resolve) => {
      const entry = (slot: Slot | undefined) => {
        clearTimeout(timer);
        resolve(slot);
      };
      const timer = setTimeout(() => {
        const i = l.waiting.indexOf(entry);
        if (i >= 0) l.waiting.splice(i, 1);
        this.drop(organizationId, l);
        resolve(undefined);
      }, this.opts.maxWaitMs);
      l.waiting.push(entry);
    });
  }

  private slot(organizationId: string, lane: Lane): Slot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const next = lane.waiting.shift();
        if (next) next(this.slot(organizationId, lane));
        else {
          lane.running--;
          this.drop(organizationId, lane);
        }
      },
    };
  }

  private drop(organizationId: string, lane: Lane): void {
    if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(organizationId);
  }

  /** Calls waiting for a slot, all organizations together (the queue-depth metric). */
  get depth(): number {
    let n = 0;
    for (const l of this.lanes.values()) n += l.waiting.length;
    return n;
  }
}
