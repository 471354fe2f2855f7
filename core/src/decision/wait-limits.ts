/**
 * Bounds on calls held waiting for a person (SPEC 8.2): 20 per gateway key
 * and 1000 in all, per Gateway process. Beyond them a call that would wait
 * answers approval_pending at once; the caller repeats it to resume.
 */
export class WaitLimits {
  private readonly perKey = new Map<string, number>();
  private total = 0;

  constructor(
    readonly maxPerKey = 20,
    readonly maxTotal = 1000,
  ) {}

  tryAcquire(keyId: string): boolean {
    const held = this.perKey.get(keyId) ?? 0;
    if (held >= this.maxPerKey || this.total >= this.maxTotal) return false;
    this.perKey.set(keyId, held + 1);
    this.total++;
    return true;
  }

  release(keyId: string): void {
    const held = this.perKey.get(keyId) ?? 0;
    if (held <= 1) this.perKey.delete(keyId);
    else this.perKey.set(keyId, held - 1);
    this.total = Math.max(0, this.total - 1);
  }

  get waiting(): number {
    return this.total;
  }
}
