import { AsyncLocalStorage } from "node:async_hooks";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { AddressRules } from "../net/index.js";
import { upstreamFetch, type UpstreamFetchOptions } from "./fetch.js";
import { upstreamClient } from "./input-requests.js";

/**
 * Whose calls a session serves: one organization's one agent. A session, and
 * whatever the server keeps for it (a logging level, a simulated log stream,
 * a counter, a subscription), is never shared with another agent, even of the
 * same organization.
 */
export interface SessionOwner {
  organizationId: string;
  agentId: string;
}

/** One MCP session with an upstream server, serving the calls of one agent to it. */
export interface UpstreamSession {
  readonly key: string;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/** How many sessions a process keeps open: in all, and for one organization. */
export interface SessionLimits {
  max: number;
  perOrganization: number;
}

export const defaultSessionLimits: SessionLimits = { max: 256, perOrganization: 64 };

interface Entry {
  organizationId: string;
  opening: Promise<UpstreamSession>;
  /** Set once open. */
  session?: UpstreamSession;
}

type SessionTarget = {
  url: string;
  authorization: string | null;
  rules: AddressRules;
  ca?: readonly string[];
  owner: SessionOwner;
};

/** The session's key: owner, server and credential (JSON, so no member can run into the next). */
const keyOf = (c: SessionTarget) =>
  JSON.stringify([c.owner.organizationId, c.owner.agentId, c.url, c.authorization ?? ""]);

/**
 * The exchange state (byte budget, deadline, first failure) of the call a
 * session is serving: every HTTP exchange the SDK makes for a call runs in
 * that call's async context, so one session serves concurrent calls, each
 * within its own 30 s and 1 MiB.
 */
export const currentCall = new AsyncLocalStorage<UpstreamFetchOptions>();

/**
 * Persistent MCP sessions with upstream servers, one per agent, server and
 * credential in a Gateway process: `initialize` once, then only `tools/call`
 * exchanges, instead of initialize, initialized and a GET for every call.
 * Keying by agent (and so by organization) keeps any state a server holds per
 * session with the one agent that made it (docs/gateway.md, "Upstream
 * sessions"). A session the server forgot (it restarted, or expired it)
 * answers 404 to its session id; the caller opens a new one and sends the
 * call again (the server did not run it).
 *
 * At most `perOrganization` sessions of one organization are kept, its least
 * recently used closed first, so an organization with many agents closes only
 * its own; past `max` in all, the least recently used session of the
 * organization holding the most is closed.
 */
export class UpstreamSessions {
  /** Least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private readonly held = new Map<string, number>();

  constructor(private readonly limits: SessionLimits = defaultSessionLimits) {}

  /** Sessions kept (opening or open): in all, or of one organization. */
  count(organizationId?: string): number {
    return organizationId === undefined ? this.entries.size : (this.held.get(organizationId) ?? 0);
  }

  /** The owner's session with this server, opened (within the current call's budget and deadline) when there is none. */
  async session(c: SessionTarget, timeoutMs: number, signal: AbortSignal): Promise<UpstreamSession> {
    const key = keyOf(c);
    const existing = this.entries.get(key);
    if (existing) {
      this.entries.delete(key);
      this.entries.set(key, existing);
      try {
        return await existing.opening;
      } catch {
        // Another call's attempt failed: this call makes its own, so its failure is its own.
      }
    }
    const opening = this.connect(key, c, timeoutMs, signal);
    const entry: Entry = { organizationId: c.owner.organizationId, opening };
    this.put(key, entry);
    opening.then(
      (s) => (entry.session = s),
      () => {
        if (this.entries.get(key) === entry) this.remove(key);
      },
    );
    this.evict(c.owner.organizationId, key);
    return opening;
  }

  private put(key: string, entry: Entry): void {
    if (!this.entries.has(key))
      this.held.set(entry.organizationId, (this.held.get(entry.organizationId) ?? 0) + 1);
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private remove(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    const n = (this.held.get(entry.organizationId) ?? 1) - 1;
    if (n > 0) this.held.set(entry.organizationId, n);
    else this.held.delete(entry.organizationId);
    return entry;
  }

  /** Closes the least recently used session of `organizationId` other than `keep`. */
  private closeOldestOf(organizationId: string, keep: string): void {
    for (const [key, entry] of this.entries) {
      if (entry.organizationId !== organizationId || key === keep) continue;
      this.remove(key);
      void entry.opening.then((s) => s.client.close()).catch(() => undefined);
      return;
    }
  }

  /** Keeps the bounds after `added` (a session of `organizationId`) was added; `added` itself stays. */
  private evict(organizationId: string, added: string): void {
    while ((this.held.get(organizationId) ?? 0) > Math.max(1, this.limits.perOrganization))
      this.closeOldestOf(organizationId, added);
    while (this.entries.size > Math.max(1, this.limits.max)) {
      // The organization holding the most besides the session just added gives one up.
      let largest: string | undefined;
      let most = 0;
      for (const [org, n] of this.held) {
        const others = org === organizationId ? n - 1 : n;
        if (others > most) [largest, most] = [org, others];
      }
      if (largest === undefined) return;
      this.closeOldestOf(largest, added);
    }
  }

  private async connect(
    key: string,
    c: SessionTarget,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<UpstreamSession> {
    const transport = new StreamableHTTPClientTransport(new URL(c.url), {
      fetch: upstreamFetch(() => currentCall.getStore()!),
      requestInit: c.authorization ? { headers: { authorization: c.authorization } } : undefined,
    });
    const client = upstreamClient();
    try {
      await client.connect(transport, { timeout: timeoutMs, signal });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return { key, client, transport };
  }

  /** Stop using a session (lost, or broken): the owner's next call opens a new one. */
  forget(session: UpstreamSession): void {
    if (this.entries.get(session.key)?.session === session) this.remove(session.key);
    void session.client.close().catch(() => undefined);
  }
  /** Whether a call's error says the server no longer knows the session it was sent on. */
  static lost(session: UpstreamSession, err: unknown): boolean {
    return (
      err instanceof StreamableHTTPError && err.code === 404 && session.transport.sessionId !== undefined
    );
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.held.clear();
    await Promise.all(all.map((e) => e.opening.then((s) => s.client.close()).catch(() => undefined)));
  }
}
