/**
 * Group commit's scheduling, with writes that end when the test says so: a
 * lone write goes at once, writes that queue go together in order, up to the
 * bound, never two sharing a key, and a failed batch is written one by one.
 */
import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit.js";

interface Item {
  id: string;
  key: string;
}

/** A GroupCommit whose statements are recorded and held until released. */
function harness(opts: { max?: number; inFlight?: number; failMany?: boolean } = {}) {
  const sent: string[][] = [];
  const sizes: number[] = [];
  const held: Array<() => void> = [];
  const hold = <R>(answer: () => R) =>
    new Promise<R>((resolve, reject) =>
      held.push(() => {
        try {
          resolve(answer());
        } catch (err) {
          reject(err);
        }
      }),
    );
  const commit = new GroupCommit<Item, string>({
    one: (item) => {
      sent.push([item.id]);
      return hold(() => {
        if (item.key === "broken") throw new Error(`cannot write ${item.id}`);
        return `one:${item.id}`;
      });
    },
    many: (items) => {
      sent.push(items.map((i) => i.id));
      return hold(() => {
        if (opts.failMany || items.some((i) => i.key === "broken")) throw new Error("batch failed");
        return items.map((i) => `many:${i.id}`);
      });
    },
    keys: (item) => [item.key],
    order: (item) => item.id,
    max: opts.max ?? 32,
    inFlight: opts.inFlight ?? 1,
    onBatch: (n) => sizes.push(n),
  });
  const releaseAll = async () => {
    while (held.length) {
      held.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { commit, sent, sizes, releaseAll };
}

describe("group commit", () => {
  it("writes a lone item at once, alone", async () => {
    const h = harness();
    const answer = h.commit.write({ id: "a", key: "1" });
    expect(h.sent).toEqual([["a"]]);
    await h.releaseAll();
    expect(await answer).toBe("one:a");
    expect(h.sizes).toEqual([1]);
  });

  it("writes the items that queued behind a statement together, sorted, each with its own answer", async () => {
    const h = harness();
    const answers = ["a", "d", "c", "b"].map((id, i) => h.commit.write({ id, key: String(i) }));
    expect(h.sent).toEqual([["a"]]);
    await h.releaseAll();
    expect(await Promise.all(answers)).toEqual(["one:a", "many:d", "many:c", "many:b"]);
    expect(h.sent).toEqual([["a"], ["b", "c", "d"]]);
    expect(h.sizes).toEqual([1, 3]);
  });

  it("keeps items sharing a key, and items past the bound, for the next statement", async () => {
    const h = harness({ max: 2 });
    const items = [
      { id: "a", key: "x" },
      { id: "b", key: "x" },
      { id: "c", key: "y" },
      { id: "d", key: "z" },
      { id: "e", key: "x" },
    ];
    const answers = items.map((i) => h.commit.write(i));
    await h.releaseAll();
    await Promise.all(answers);
    expect(h.sent).toEqual([["a"], ["b", "c"], ["d", "e"]]);
  });

  it("runs up to inFlight statements at once", async () => {
    const h = harness({ inFlight: 2 });
    const answers = ["a", "b", "c", "d"].map((id) => h.commit.write({ id, key: id }));
    expect(h.sent).toEqual([["a"], ["b"]]);
    await h.releaseAll();
    await Promise.all(answers);
    expect(h.sent).toEqual([["a"], ["b"], ["c", "d"]]);
  });

  it("writes a failed batch one item at a time: the sound ones answered, the broken one refused", async () => {
    const h = harness();
    const first = h.commit.write({ id: "a", key: "1" });
    const sound = h.commit.write({ id: "b", key: "2" });
    const broken = h.commit.write({ id: "c", key: "broken" }).then(
      () => "written",
      (err: Error) => err.message,
    );
    await h.releaseAll();
    expect(await first).toBe("one:a");
    expect(await sound).toBe("one:b");
    expect(await broken).toBe("cannot write c");
    expect(h.sent).toEqual([["a"], ["b", "c"], ["b"], ["c"]]);
  });
});
