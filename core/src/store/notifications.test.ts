import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { NotificationHub } from "./notifications.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => db?.drop());

describe("NotificationHub", () => {
  it("wakes waiters in every process holding the id, and only them", async () => {
    const a = new NotificationHub(db.url, "test_channel");
    const b = new NotificationHub(db.url, "test_channel");
    await Promise.all([a.start(), b.start()]);
    try {
      const onA = a.wait("id-1", 10_000);
      const onB = b.wait("id-1", 10_000);
      const other = b.wait("id-2", 300);
      await db.pool.query("select pg_notify('test_channel', 'id-1')");
      expect(await onA).toBe(true);
      expect(await onB).toBe(true);
      expect(await other).toBe(false);
      expect(a.waiting + b.waiting).toBe(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("a notification sent inside a transaction arrives only after commit", async () => {
    const hub = new NotificationHub(db.url, "tx_channel");
    await hub.start();
    try {
      const client = await db.pool.connect();
      await client.query("begin");
      await client.query("select pg_notify('tx_channel', 'x')");
      let woke = false;
      const waiting = hub.wait("x", 10_000).then((v) => (woke = v));
      await new Promise((r) => setTimeout(r, 200));
      expect(woke).toBe(false);
      await client.query("commit");
      client.release();
      await waiting;
      expect(woke).toBe(true);
    } finally {
      await hub.stop();
    }
  });

  it("stops waiting on abort", async () => {
    const hub = new NotificationHub(db.url, "abort_channel");
    await hub.start();
    const ac = new AbortController();
    const w = hub.wait("y", 10_000, ac.signal);
    ac.abort();
    expect(await w).toBe(false);
    await hub.stop();
  });
});
