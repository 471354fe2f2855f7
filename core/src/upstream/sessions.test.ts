/**
 * The bounds on persistent upstream sessions: an organization with many
 * agents closes only its own least recently used sessions; past the process's
 * bound, the organization holding the most gives one up, never one that holds
 * few. A closed session's agent simply opens a new one at its next call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStatefulUpstream, type StatefulUpstream } from "../../../test/fixtures/stateful-upstream.js";
import { callUpstreamTool } from "./call-tool.js";
import { UpstreamSessions } from "./sessions.js";

let up: StatefulUpstream;
beforeAll(async () => {
  up = await startStatefulUpstream("count");
});
afterAll(() => up?.close());

const rules = { allowLoopback: true };

/** One call for `agentId` of `organizationId`; answers the session it ran on. */
async function callAs(sessions: UpstreamSessions, organizationId: string, agentId: string) {
  const outcome = await callUpstreamTool({
    url: up.url,
    authorization: null,
    tool: "count",
    arguments: {},
    rules,
    sessions,
    owner: { organizationId, agentId },
  });
  if (outcome.kind !== "result") throw new Error(`the call failed: ${outcome.code}`);
  return (outcome.result.structuredContent as { session: string }).session;
}

describe("UpstreamSessions bounds", () => {
  it("an organization past its share closes its own least recently used session, not another's", async () => {
    const sessions = new UpstreamSessions({ max: 10, perOrganization: 2 });
    const b1 = await callAs(sessions, "org-b", "b1");
    const a1 = await callAs(sessions, "org-a", "a1");
    const a2 = await callAs(sessions, "org-a", "a2");
    expect(await callAs(sessions, "org-a", "a1")).toBe(a1); // a1 used again: a2 is now the least recent
    await callAs(sessions, "org-a", "a3");
    expect(sessions.count("org-a")).toBe(2);
    expect(sessions.count("org-b")).toBe(1);
    // a1 and b1 kept theirs; a2's was closed, so its next call opens a new one.
    expect(await callAs(sessions, "org-a", "a1")).toBe(a1);
    expect(await callAs(sessions, "org-b", "b1")).toBe(b1);
    expect(await callAs(sessions, "org-a", "a2")).not.toBe(a2);
    await sessions.closeAll();
    expect(sessions.count()).toBe(0);
  });

  it("past the process's bound, the organization holding the most gives one up", async () => {
    const sessions = new UpstreamSessions({ max: 3, perOrganization: 3 });
    const c1 = await callAs(sessions, "org-c", "c1");
    const big = [await callAs(sessions, "org-big", "x1"), await callAs(sessions, "org-big", "x2")];
    // A fourth session, for a new organization: org-big (2 sessions) loses its oldest, not org-c.
    await callAs(sessions, "org-d", "d1");
    expect(sessions.count()).toBe(3);
    expect([sessions.count("org-big"), sessions.count("org-c"), sessions.count("org-d")]).toEqual([1, 1, 1]);
    expect(await callAs(sessions, "org-c", "c1")).toBe(c1);
    expect(await callAs(sessions, "org-big", "x2")).toBe(big[1]);
    await sessions.closeAll();
  });

  it("past the bound with one session per organization, a new organization's session is kept and an older one closed", async () => {
    const sessions = new UpstreamSessions({ max: 2, perOrganization: 2 });
    const first = await callAs(sessions, "org-1", "a");
    const second = await callAs(sessions, "org-2", "a");
    const third = await callAs(sessions, "org-3", "a");
    expect(sessions.count()).toBe(2);
    expect(sessions.count("org-3")).toBe(1);
    // org-1's was closed (of the organizations holding the most, the first); the others serve again as they are.
    expect(await callAs(sessions, "org-3", "a")).toBe(third);
    expect(await callAs(sessions, "org-2", "a")).toBe(second);
    expect(sessions.count("org-1")).toBe(0);
    expect(first).not.toBe(third);
    await sessions.closeAll();
  });

  it("without an owner a call never uses a persistent session", async () => {
    const sessions = new UpstreamSessions();
    const outcome = await callUpstreamTool({
      url: up.url,
      authorization: null,
      tool: "count",
      arguments: {},
      rules,
      sessions,
    });
    expect(outcome.kind).toBe("result");
    expect(sessions.count()).toBe(0);
  });
});
