import { readPath, type PathToken } from "../json-path.js";

/**
 * Reads each argument path at most once per evaluation, however many rules
 * test it (policies tend to test the same few paths, e.g. `$.env`, in many
 * rules). One instance per compiled policy, reused across evaluations through
 * an epoch counter, so the hot path allocates nothing. Evaluation is
 * synchronous, so one evaluation never interleaves with another.
 */
export class ArgumentReads {
  private epoch = 0;
  private readonly seen: Uint32Array;
  private readonly values: unknown[];
  private args: unknown = undefined;

  constructor(private readonly paths: readonly (readonly PathToken[])[]) {
    this.seen = new Uint32Array(paths.length);
    this.values = new Array<unknown>(paths.length);
  }

  /** Starts an evaluation over these arguments: earlier reads no longer count. */
  begin(args: unknown): this {
    this.args = args;
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    return this;
  }

  read(slot: number): unknown {
    if (this.seen[slot] !== this.epoch) {
      this.seen[slot] = this.epoch;
      this.values[slot] = readPath(this.args, this.paths[slot]!);
    }
    return this.values[slot];
  }
}
