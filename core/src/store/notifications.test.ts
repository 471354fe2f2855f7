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

  it("after losing its connection it listens again on one connection, and a wait begun meanwhile re-reads once it does", async () => {
    const hub = new NotificationHub(db.url, "lost_channel");
    await hub.start();
    const listeners = async () =>
      (
        await db.pool.query<{ pid: number }>(
          "select pid from pg_stat_activity where application_name = 'countersign-listen-lost_channel'",
        )
      ).rows.map((r) => r.pid);
    /** The one listening connection once it is not `gone` (a terminated backend lingers a moment). */
    const listenerAfter = async (gone: number | undefined) => {
      for (let i = 0; i < 200; i++) {
        const pids = (await listeners()).filter((p) => p !== gone);
        if (pids.length === 1) return pids[0]!;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`not one listening connection: ${await listeners()}`);
    };
    try {
      let pid = await listenerAfter(undefined);
      const before = hub.wait("a", 10_000);
      await db.pool.query("select pg_terminate_backend($1)", [pid]);
      // A wait held when the connection was lost is woken at once, to re-read what it waits for.
      expect(await before).toBe(true);
      // A notification sent before the hub listens again is missed: the wait begun meanwhile
      // is woken when it listens again, so it re-reads instead of sleeping out its time.
      await new Promise((r) => setTimeout(r, 300));
      const meanwhile = hub.wait("b", 10_000);
      await db.pool.query("select pg_notify('lost_channel', 'b')");
      expect(await meanwhile).toBe(true);
      pid = await listenerAfter(pid);
      const after = hub.wait("c", 10_000);
      await db.pool.query("select pg_notify('lost_channel', 'c')");
      expect(await after).toBe(true);
      // Lost twice more: each time exactly one listening connection again, which notifications reach.
      for (let round = 0; round < 2; round++) {
        await db.pool.query("select pg_terminate_backend($1)", [pid]);
        pid = await listenerAfter(pid);
        const notified = hub.wait(`d${round}`, 10_000);
        await db.pool.query("select pg_notify('lost_channel', $1)", [`d${round}`]);
        expect(await notified).toBe(true);
      }
      await new Promise((r) => setTimeout(r, 1500));
      expect(await listeners()).toEqual([pid]);
    } finally {
      await hub.stop();
    }
    for (let i = 0; (await listeners()).length !== 0 && i < 100; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await listeners()).toHaveLength(0);
  });
});
