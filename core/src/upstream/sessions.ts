import { AsyncLocalStorage } from "node:async_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { AddressRules } from "../net/index.js";
import { upstreamFetch, type UpstreamFetchOptions } from "./fetch.js";

/** One MCP session with an upstream server, shared by every call this process makes to it. */
export interface UpstreamSession {
  readonly key: string;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

// The SDK client builds an Ajv instance for every Client it makes unless it is given one; this
// client only sends tools/call (never listTools, whose output schemas it would compile and keep).
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * The exchange state (byte budget, deadline, first failure) of the call a
 * session is serving: every HTTP exchange the SDK makes for a call runs in
 * that call's async context, so one session serves concurrent calls, each
 * within its own 30 s and 1 MiB.
 */
export const currentCall = new AsyncLocalStorage<UpstreamFetchOptions>();

/**
 * One persistent MCP session per upstream server (URL and credential) per
 * Gateway process: `initialize` once, then only `tools/call` exchanges,
 * instead of initialize, initialized and a GET for every call. A session the
 * server forgot (it restarted, or expired it) answers 404 to its session id;
 * the caller opens a new one and sends the call again (the server did not
 * run it). At most `max` sessions are kept; the oldest is closed first.
 */
export class UpstreamSessions {
  private readonly open = new Map<string, Promise<UpstreamSession>>();
  private readonly ready = new Map<string, UpstreamSession>();

  constructor(private readonly max = 256) {}

  /** The session for this server, opened (within the current call's budget and deadline) when there is none. */
  async session(
    c: { url: string; authorization: string | null; rules: AddressRules; ca?: string[] },
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<UpstreamSession> {
    const key = `${c.url}\n${c.authorization ?? ""}`;
    const existing = this.open.get(key);
    if (existing) {
      try {
        return await existing;
      } catch {
        // Another call's attempt failed: this call makes its own, so its failure is its own.
      }
    }
    const opening = this.connect(key, c, timeoutMs, signal);
    this.open.set(key, opening);
    opening.catch(() => {
      if (this.open.get(key) === opening) this.open.delete(key);
    });
    if (this.open.size > this.max) {
      const [oldestKey, oldest] = this.open.entries().next().value!;
      this.open.delete(oldestKey);
      this.ready.delete(oldestKey);
      void oldest.then((s) => s.client.close()).catch(() => undefined);
    }
    return opening;
  }

  private async connect(
    key: string,
    c: { url: string; authorization: string | null; rules: AddressRules; ca?: string[] },
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<UpstreamSession> {
    const transport = new StreamableHTTPClientTransport(new URL(c.url), {
      fetch: upstreamFetch(() => currentCall.getStore()!),
      requestInit: c.authorization ? { headers: { authorization: c.authorization } } : undefined,
    });
    const client = new Client({ name: "countersign-gateway", version: "0.1.0" }, { jsonSchemaValidator });
    try {
      await client.connect(transport, { timeout: timeoutMs, signal });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    const session = { key, client, transport };
    this.ready.set(key, session);
    return session;
  }

  /** Stop using a session (lost, or broken): the next call opens a new one. */
  forget(session: UpstreamSession): void {
    if (this.ready.get(session.key) === session) {
      this.ready.delete(session.key);
      this.open.delete(session.key);
    }
    void session.client.close().catch(() => undefined);
  }

  /** Whether a call's error says the server no longer knows the session it was sent on. */
  static lost(session: UpstreamSession, err: unknown): boolean {
    return (
      err instanceof StreamableHTTPError && err.code === 404 && session.transport.sessionId !== undefined
    );
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    this.ready.clear();
    await Promise.all(all.map((p) => p.then((s) => s.client.close()).catch(() => undefined)));
  }
}
