/**
 * Many changes to one MCP server's tools at once (issue 44): enabling 15 tools
 * together while more tools of the same server are created answered 500 on a
 * PostgreSQL deadlock (a tool change held the server's row and waited for the
 * organization's, a creation held the organization's and waited for the
 * server's). Against the real Cloud API and PostgreSQL: every request gets its
 * normal answer and the final state is what the requests asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { orgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { defaultPlan: "startup" });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const TOOLS = 15;
const ROUNDS = 3;

describe("concurrent changes to one server's tools", () => {
  it("enabling and disabling 15 tools at once while tools are created: no 500, the final state as asked", async () => {
    const o = await orgWithOwner(api);
    const server = (await o.owner.post(`/orgs/${o.org}/mcp-servers`, { kind: "decision_only", name: "erp" }))
      .body.mcp_server.id as string;
    const ids: string[] = [];
    for (let i = 0; i < TOOLS; i++) {
      const res = await o.owner.post(`/orgs/${o.org}/tools`, {
        mcp_server_id: server,
        exposed_name: `tool_${i}`,
        action: `erp.tool_${i}`,
      });
      expect(res.status).toBe(201);
      ids.push(res.body.tool.id as string);
    }

    let created = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const enabled = round % 2 === 0;
      const answers = await Promise.all([
        ...ids.map((id) => o.owner.patch(`/orgs/${o.org}/tools/${id}`, { enabled })),
        ...Array.from({ length: 5 }, () =>
          o.owner.post(`/orgs/${o.org}/tools`, {
            mcp_server_id: server,
            exposed_name: `extra_${created}`,
            action: `erp.extra_${created++}`,
          }),
        ),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([
        ...Array<number>(TOOLS).fill(200),
        ...Array<number>(5).fill(201),
      ]);
      const tools = await Promise.all(ids.map((id) => o.owner.get(`/orgs/${o.org}/tools/${id}`)));
      expect(tools.map((t) => t.body.tool.enabled)).toEqual(Array<boolean>(TOOLS).fill(enabled));
    }

    // Each change recorded once: a retried transaction leaves no second audit entry.
    const { rows } = await db.pool.query<{ action: string; n: number }>(
      `select action, count(*)::int as n from audit_log
        where organization_id = $1 and action in ('tool.enabled', 'tool.disabled', 'tool.created')
        group by action order by action`,
      [o.org],
    );
    expect(rows).toEqual([
      { action: "tool.created", n: TOOLS + 5 * ROUNDS },
      { action: "tool.disabled", n: TOOLS },
      { action: "tool.enabled", n: TOOLS * 2 },
    ]);
  });
});
