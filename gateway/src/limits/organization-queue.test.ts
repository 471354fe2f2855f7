import { describe, expect, it } from "vitest";
import { OrganizationQueue } from "./organization-queue.js";

describe("OrganizationQueue (SPEC 8.2)", () => {
  it("bounds calls in progress per organization and hands slots out in order", async () => {
    const q = new OrganizationQueue({ perOrganization: 2, maxWaiting: 10, maxWaitMs: 10_000 });
    const a = await q.acquire("org-a");
    const b = await q.acquire("org-a");
    const order: number[] = [];
    const c = q.acquire("org-a").then((s) => (order.push(3), s));
    const d = q.acquire("org-a").then((s) => (order.push(4), s));
    expect(q.depth).toBe(2);
    a!.release();
    b!.release();
    const [sc, sd] = await Promise.all([c, d]);
    expect(order).toEqual([3, 4]);
    expect(sc).toBeDefined();
    expect(sd).toBeDefined();
    expect(q.depth).toBe(0);
  });

  it("keeps organizations apart: one full organization does not block another", async () => {
    const q = new OrganizationQueue({ perOrganization: 1, maxWaiting: 10, maxWaitMs: 10_000 });
    const a = await q.acquire("busy");
    const waiting = q.acquire("busy");
    const other = await q.acquire("quiet");
    expect(other).toBeDefined();
    a!.release();
    expect(await waiting).toBeDefined();
  });

  it("refuses beyond the waiting limit and after the longest wait", async () => {
    const q = new OrganizationQueue({ perOrganization: 1, maxWaiting: 1, maxWaitMs: 100 });
    await q.acquire("o");
    const waiter = q.acquire("o");
    expect(await q.acquire("o")).toBeUndefined(); // queue full
    expect(await waiter).toBeUndefined(); // waited too long
    expect(q.depth).toBe(0);
  });

  it("a release is idempotent", async () => {
    const q = new OrganizationQueue({ perOrganization: 1, maxWaiting: 5, maxWaitMs: 10_000 });
    const a = await q.acquire("o");
    a!.release();
    a!.release();
    const b = await q.acquire("o");
    const c = q.acquire("o");
    expect(q.depth).toBe(1);
    b!.release();
    expect(await c).toBeDefined();
  });
});
