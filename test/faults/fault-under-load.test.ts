/**
 * Faults under steady load: several clients decide calls through two Gateway
 * processes and read through the Cloud API process while PostgreSQL is shut
 * down fast and started again, one Gateway process is SIGKILLed, and then the
 * postmaster is SIGKILLed and started again. Clients behave as the spec asks:
 * a 503 (with Retry-After) or no answer is retried with the same idempotency
 * key, at the other Gateway.
 *
 * Afterwards: every acknowledged decision (2xx, allowed, authorized) is stored
 * with its receipt; no idempotency key has two actions; no answer was a 500
 * (or any 5xx but a 503 with Retry-After); the surviving Gateway and the api
 * serve again, as the same processes.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { insertApiKey } from "../../core/src/keys/index.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startRestartablePostgres, type RestartablePostgres } from "../fixtures/restartable-postgres.js";
import { startGatewayProcess, type GatewayProcess } from "../multi-replica/gateway-process.js";
import { startApiProcess, type ApiProcess } from "../webhooks/api-process.js";

const CLIENTS = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pg: RestartablePostgres;
let api: ApiProcess;
let gateways: [GatewayProcess, GatewayProcess];
let world: AuthorizationWorld;
let clientKeys: string[];
let managementKey: string;
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  pg = await startRestartablePostgres();
  world = await createAuthorizationWorld(pg.pool, keyHashSecret);
  // One gateway key per client, so no client waits on another's rate limit.
  clientKeys = [];
  for (let i = 0; i < CLIENTS; i++)
    clientKeys.push(
      (await createGatewayKey(pg.pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId))
        .key,
    );
  managementKey = (
    await insertApiKey(pg.pool, keyHashSecret, {
      organizationId: world.organizationId,
      kind: "management",
      environment: "live",
      name: "reader",
      scopes: ["read"],
    })
  ).key;
  const [a, g1, g2] = await Promise.all([
    startApiProcess({ databaseUrl: pg.url, credentialKey: randomBytes(32), keyHashSecret }),
    startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey }),
    startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey }),
  ]);
  api = a;
  gateways = [g1, g2];
}, 180_000);
afterAll(async () => {
  await Promise.all([api?.kill("SIGTERM"), ...(gateways ?? []).map((g) => g.stop())]);
  await pg?.close();
});

interface Answer {
  /** HTTP status, or 0 when no answer came (connection refused or reset). */
  status: number;
  retryAfter: string | null;
  body: { allowed?: boolean; status?: string; protected_action_id?: string; receipt_id?: string } | undefined;
}

async function post(url: string, key: string, body: unknown): Promise<Answer> {
  try {
    const res = await fetch(`${url}/v1/authorize`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let parsed: Answer["body"];
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: parsed };
  } catch {
    return { status: 0, retryAfter: null, body: undefined };
  }
}

describe("PostgreSQL restarted twice and a Gateway killed, under load", () => {
  it(
    "loses no acknowledged decision, doubles no action, answers no 500, and every survivor serves again",
    { timeout: 180_000 },
    async () => {
      let running = true;
      const answers: (Answer & { idempotencyKey: string })[] = [];
      const apiAnswers: Answer[] = [];
      let acknowledged = 0;

      const client = async (i: number) => {
        for (let seq = 0; running; seq++) {
          const idempotencyKey = `c${i}-${seq}`;
          const body = {
            tool: world.tool,
            arguments: { order: idempotencyKey, amount: 5 },
            idempotency_key: idempotencyKey,
          };
          // A refusal to retry (503) or no answer: the same call again, at the other Gateway.
          for (let attempt = 0; attempt < 40; attempt++) {
            const answer = await post(gateways[(i + seq + attempt) % 2]!.url, clientKeys[i]!, body);
            answers.push({ ...answer, idempotencyKey });
            if (answer.status === 200) acknowledged++;
            if (answer.status === 429) await sleep(Number(answer.retryAfter ?? 1) * 1000);
            else if (answer.status !== 503 && answer.status !== 0) break;
            await sleep(answer.status === 503 ? 200 : 50);
          }
          await sleep(40); // within the key's refill of 20 per second
        }
      };
      const reader = async () => {
        while (running) {
          try {
            const res = await fetch(`${api.url}/api/v1/orgs/${world.organizationId}/actions?limit=5`, {
              headers: { authorization: `Bearer ${managementKey}` },
              signal: AbortSignal.timeout(20_000),
            });
            await res.arrayBuffer();
            apiAnswers.push({
              status: res.status,
              retryAfter: res.headers.get("retry-after"),
              body: undefined,
            });
          } catch {
            apiAnswers.push({ status: 0, retryAfter: null, body: undefined });
          }
          await sleep(100);
        }
      };
      /** Waits until the clients got `more` acknowledgements from now on. */
      const progress = async (more: number) => {
        const target = acknowledged + more;
        for (let i = 0; acknowledged < target; i++) {
          if (i > 1200)
            throw new Error(
              `no progress: ${acknowledged} acknowledged, last answers ${JSON.stringify(answers.slice(-5))}`,
            );
          await sleep(50);
        }
      };

      const load = [...Array.from({ length: CLIENTS }, (_, i) => client(i)), reader()];
      try {
        await progress(30);
        await pg.stop("fast");
        await sleep(1500);
        await pg.start();
        await progress(30);
        await gateways[1].kill();
        await progress(30);
        await pg.stop("kill");
        await sleep(1000);
        await pg.start();
        await progress(30);
      } finally {
        running = false;
        await Promise.all(load);
      }

      // No 500: only 200, a rate limit's 429 (each client stays near its key's refill), 503 with Retry-After, or no answer.
      const statuses = new Map<number, number>();
      for (const a of [...answers, ...apiAnswers]) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      expect(
        [...statuses.keys()].filter((s) => ![200, 429, 503, 0].includes(s)),
        JSON.stringify([...statuses]),
      ).toEqual([]);
      for (const a of [...answers, ...apiAnswers].filter((x) => x.status === 503 || x.status === 429))
        expect(a.retryAfter).toMatch(/^[1-9][0-9]*$/);
      for (const a of [...answers, ...apiAnswers].filter((x) => x.status === 503))
        expect(a.retryAfter).toBe("5");
      // The outages were seen: some calls were refused or went unanswered, and were retried.
      expect((statuses.get(503) ?? 0) + (statuses.get(0) ?? 0)).toBeGreaterThan(0);

      // Every acknowledged decision is stored, with its receipt, under its idempotency key.
      const acks = answers.filter((a) => a.status === 200);
      expect(
        acks.every(
          (a) =>
            a.body?.allowed === true &&
            a.body.status === "authorized" &&
            a.body.protected_action_id &&
            a.body.receipt_id,
        ),
      ).toBe(true);
      const { rows } = await pg.pool.query<{ id: string; idempotency_key: string; receipt_id: string }>(
        `select pa.id, pa.idempotency_key, r.id as receipt_id
         from protected_actions pa join receipts r on r.protected_action_id = pa.id and r.kind = 'authorization'
        where pa.id = any($1::uuid[])`,
        [[...new Set(acks.map((a) => a.body!.protected_action_id!))]],
      );
      const stored = new Map(rows.map((r) => [r.id, r]));
      for (const a of acks) {
        expect(stored.get(a.body!.protected_action_id!), a.idempotencyKey).toMatchObject({
          idempotency_key: a.idempotencyKey,
          receipt_id: a.body!.receipt_id,
        });
      }
      // An idempotency key answered more than once was answered with one action.
      const actionOf = new Map<string, Set<string>>();
      for (const a of acks)
        actionOf.set(
          a.idempotencyKey,
          (actionOf.get(a.idempotencyKey) ?? new Set()).add(a.body!.protected_action_id!),
        );
      expect([...actionOf].filter(([, ids]) => ids.size > 1)).toEqual([]);
      // No idempotency key has two actions in the database, acknowledged or not.
      const doubled = await pg.pool.query(
        `select api_key_id, idempotency_key, count(*)::int as n from protected_actions
        where organization_id = $1 and idempotency_key is not null group by 1, 2 having count(*) > 1`,
        [world.organizationId],
      );
      expect(doubled.rows).toEqual([]);

      // The survivors serve again, as the same processes.
      expect(api.alive(), api.output()).toBe(true);
      expect(gateways[0].alive(), gateways[0].output()).toBe(true);
      const again = await post(gateways[0].url, clientKeys[0]!, {
        tool: world.tool,
        arguments: { order: "after", amount: 5 },
      });
      expect(again.body).toMatchObject({ allowed: true, status: "authorized" });
      const listed = await fetch(`${api.url}/api/v1/orgs/${world.organizationId}/actions?limit=1`, {
        headers: { authorization: `Bearer ${managementKey}` },
      });
      expect(listed.status).toBe(200);
    },
  );
});
