/**
 * The official MCP conformance suite against the Gateway (issue 40, "Done
 * when"): the suite's CLI as shipped on npm, through a proxy that adds the
 * agent's gateway key, to the Gateway, in front of our own upstream server
 * implementing the tools the suite's scenarios call (upstream.ts; the suite's
 * reference server is not published on npm), registered as an
 * organization's MCP server through the Cloud API (discovered, every tool
 * made and enabled by an admin), with a policy that allows every call. Run
 * for 2025-11-25 (0.1.16) and for 2026-07-28 (0.2.0-alpha.12, the revision's
 * requirements). Every scenario within the spec's scope passes; every other
 * scenario the suite reports is listed in docs/gateway.md ("Conformance"),
 * with its reason and the Gateway's answer.
 */
import { readFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { signedInMember } from "../fixtures/policies.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestCa, type TestCa } from "../fixtures/https-receiver.js";
import { startForwarder, type Forwarder } from "./forwarder.js";
import { startConformanceUpstream, type ConformanceUpstream } from "./upstream.js";
import { runConformance, type Revision, type ScenarioOutcome } from "./suite.js";

/** The scenarios of the spec's scope (tools, content types, progress, errors, schemas, transport security). */
const inScope: Record<Revision, string[]> = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "dns-rebinding-protection",
  ],
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "caching",
    "dns-rebinding-protection",
    "http-header-validation",
  ],
};

const allowEverything = { revision: 1, default_effect: "allow", rules: [] };

let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let world: AuthorizationWorld;
let ca: TestCa;
let upstream: ConformanceUpstream;
let upstreamTls: Forwarder;
let proxy: Forwarder;

beforeAll(async () => {
  db = await createTestDatabase();
  ca = createTestCa();
  api = await startCloudApi(db, { extra: { mcp: { allowLoopbackUrls: true, ca: [ca.caPem] } } });
  gw = await startTestGateway(db, { keyHashSecret: api.keyHashSecret, upstreamCa: [ca.caPem] });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret, {
    document: allowEverything,
    permissions: ["conformance.*"],
  });
  upstream = await startConformanceUpstream();
  upstreamTls = await startForwarder(upstream.url, { tls: { key: ca.key, cert: ca.cert } });
  const { b: admin } = await signedInMember(api, db.pool, world.organizationId, "admin");
  const server = await admin.post(`/orgs/${world.organizationId}/mcp-servers`, {
    kind: "mcp",
    name: `conformance-${randomBytes(3).toString("hex")}`,
    url: `${upstreamTls.url}/mcp`,
  });
  if (server.status !== 201) throw new Error(`mcp server ${server.status} ${server.text}`);
  const serverId = server.body.mcp_server.id;
  const found = await admin.post(`/orgs/${world.organizationId}/mcp-servers/${serverId}/discover`, {});
  if (found.status !== 200) throw new Error(`discover ${found.status} ${found.text}`);
  for (const t of found.body.tools as { name: string; schema_valid: boolean }[]) {
    if (!t.schema_valid) continue;
    const tool = await admin.post(`/orgs/${world.organizationId}/tools`, {
      mcp_server_id: serverId,
      exposed_name: t.name,
      upstream_name: t.name,
      action: "conformance.call",
      enabled: true,
    });
    if (tool.status !== 201) throw new Error(`tool ${t.name}: ${tool.status} ${tool.text}`);
  }
  // Keys of the same agent in turns: the suite is faster than one key's rate limit (SPEC 8.2).
  const keys = [world.key];
  for (let i = 1; i < 8; i++)
    keys.push(
      (await createGatewayKey(db.pool, gw.keyHashSecret, world.organizationId, world.agentId, world.ownerId))
        .key,
    );
  let turn = 0;
  proxy = await startForwarder(gw.gateway.url, {
    headers: () => ({ authorization: `Bearer ${keys[turn++ % keys.length]}` }),
  });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await upstreamTls?.close();
  await upstream?.close();
  await gw?.close();
  await api?.close();
  await db?.drop();
  ca?.dispose();
});

/**
 * What docs/gateway.md's "Conformance" section lists as outside the Gateway's scope: the first cell
 * of each row of its tables, a scenario (all its checks) or a single check id.
 */
async function listedInDocs(): Promise<Set<string>> {
  const doc = await readFile(new URL("../../docs/gateway.md", import.meta.url), "utf8");
  const section = /\n## Conformance\n([\s\S]*?)(?=\n## |$)/.exec(doc)?.[1] ?? "";
  const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]!);
  return new Set(z.array(z.string()).parse(rows));
}

const describeOutcomes = (outcomes: ScenarioOutcome[]) =>
  outcomes
    .filter((o) => !o.passed)
    .map((o) => `${o.scenario}: ${o.failures.join("; ")}`)
    .join("\n");

describe.each(["2025-11-25", "2026-07-28"] as const)("the official conformance suite, %s", (revision) => {
  it("passes every in-scope scenario, and every failure it reports is listed in docs/gateway.md", async () => {
    const outcomes = await runConformance(revision, `${proxy.url}/mcp`);
    const listed = await listedInDocs();
    const byName = new Map(outcomes.map((o) => [o.scenario, o]));
    // Every in-scope scenario ran, none is listed whole, and each of its failed checks (if any) is
    // one docs/gateway.md lists by id with its reason.
    expect(inScope[revision].filter((s) => !byName.has(s) || listed.has(s))).toEqual([]);
    const failedInScope = inScope[revision].flatMap((s) =>
      byName
        .get(s)!
        .failed.filter((id) => !listed.has(id))
        .map((id) => `${s}/${id}`),
    );
    expect(failedInScope, describeOutcomes(outcomes)).toEqual([]);
    const unaccounted = outcomes
      .filter((o) => !listed.has(o.scenario))
      .flatMap((o) => o.failed.filter((id) => !listed.has(id)).map((id) => `${o.scenario}/${id}`));
    expect(unaccounted, describeOutcomes(outcomes)).toEqual([]);
  }, 300_000);
});

/**
 * The upstream's own scenarios, run against it directly: every tools scenario of the 2025-11-25
 * suite passes there, those the Gateway does not pass through included (logging, sampling,
 * elicitation). So a failure through the Gateway listed in docs/gateway.md is the Gateway's answer
 * to a tool that works, not a tool missing from our upstream.
 */
const upstreamScenarios = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-with-logging",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
];

describe("our conformance upstream, alone", () => {
  it("passes every tools scenario of the 2025-11-25 suite", async () => {
    const outcomes = await runConformance("2025-11-25", upstream.url);
    const byName = new Map(outcomes.map((o) => [o.scenario, o]));
    expect(
      upstreamScenarios.filter((s) => !byName.get(s)?.passed),
      describeOutcomes(outcomes),
    ).toEqual([]);
  }, 300_000);
});
