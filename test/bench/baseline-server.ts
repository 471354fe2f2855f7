/**
 * The benchmark's reference servers, on the same HTTP stack (core/src/server)
 * and making the same Ed25519 signatures a decision makes (TASK, PROPOSAL,
 * RECEIPT) over bodies of the same size, each with a unique id so that no
 * two requests write the same content-addressed object:
 * - BENCH_SIDE=baseline: the Gateway's own decision write (core/src/decision/record/store.ts), the
 *   same rows, and no other logic (no key check, rate limit, context, policy);
 * - BENCH_SIDE=minimal: the minimal durable signed decision, the ceiling:
 *   parse, the key's HMAC, canonical JSON + SHA-256, the signatures, one
 *   insert of the same bytes, synchronous commit. With UPSTREAM_URL, it also
 *   answers the minimal durable signed tools/call on POST /mcp: that
 *   decision, written and committed before the upstream is called (the
 *   exactly-once claim), the call forwarded over a kept-alive connection,
 *   then the RESULT and its receipt signed, written and committed before the
 *   answer. Every tools/call through the Gateway pays at least this.
 */
import { createHmac, randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { canonicalJson, sha256Digest } from "../../protocol/src/canonical/index.js";
import { recordDecision, type DecisionWrite } from "../../core/src/decision/record/index.js";
import { generateSeed, nodeSigner } from "../../protocol/src/evidence/index.js";
import { createLogger, createServer } from "../../core/src/server/index.js";
import { createPool } from "../../core/src/store/index.js";

const pool = createPool(process.env.DATABASE_URL!, { applicationName: "baseline", max: 16 });
const signer = nodeSigner(generateSeed());
const organizationId = process.env.BASELINE_ORG!;
const agentId = process.env.BASELINE_AGENT!;
const template = JSON.parse(process.env.BASELINE_TEMPLATE!) as {
  task: unknown;
  proposal: unknown;
  receipt: unknown;
  bundle: string;
};

const app = createServer({
  logger: createLogger("baseline", "silent"),
  bodyLimit: 1024 * 1024,
  readiness: async () => undefined,
  refuseWhileDraining: (_q, r) => r.code(503).send(),
  refuseMalformedUrl: (_q, r) => r.code(404).send(),
  unreadableRequestBody: (message) => ({ message }),
});
const minimal = process.env.BENCH_SIDE === "minimal";
/** The upstream's own name for the tool the minimal tools/call forwards to. */
const upstreamTool = process.env.UPSTREAM_TOOL ?? "";
const hmacKey = Buffer.alloc(32, 7);
const MINIMAL_INSERT = {
  name: "bench_minimal",
  text: "insert into bench_minimal_decisions (id, record) values ($1, $2)",
};

/** Signed objects over these bodies, each carrying the action's id, so every object id is unique. */
function signAll(bodies: unknown[], id: string) {
  return bodies.map((b) => {
    const bytes = Buffer.from(
      canonicalJson({ ...(b as object), issued_at: new Date().toISOString(), protected_action_id: id }),
    );
    return {
      id: `ko_${sha256Digest(bytes).slice(7)}`,
      signature: Buffer.from(signer.sign(bytes)).toString("base64url"),
      body: b,
    };
  });
}

/** The minimal durable decision: the key's HMAC, the arguments' digest, the signatures, one insert, synchronous commit. */
async function minimalDecision(authorization: unknown, args: unknown, id: string) {
  createHmac("sha256", hmacKey).update(String(authorization)).digest();
  sha256Digest(canonicalJson(args ?? {}));
  const signed = signAll([template.task, template.proposal, template.receipt], id);
  await pool.query({
    ...MINIMAL_INSERT,
    values: [id, Buffer.from(JSON.stringify({ signed, bundle: template.bundle }))],
  });
  return signed;
}

app.post("/v1/authorize", async (request) => {
  const body = request.body as { arguments?: unknown };
  const id = randomUUID();
  if (minimal) {
    const signed = await minimalDecision(request.headers.authorization, body.arguments, id);
    return { allowed: true, status: "authorized", protected_action_id: id, receipt_object_id: signed[2]!.id };
  }
  const argumentsDigest = sha256Digest(canonicalJson(body.arguments ?? {}));
  const signed = signAll([template.task, template.proposal, template.receipt], id);
  const write: DecisionWrite = {
    action: {
      id,
      organizationId,
      agentId,
      apiKeyId: null as unknown as string,
      toolId: null as unknown as string,
      toolName: "issue_refund",
      action: "payments.refund",
      execution: "caller",
      environment: "live",
      status: "authorized",
      decisionCode: null,
      decisionDetail: null,
      argumentsDigest,
      requestFingerprint: argumentsDigest,
      idempotencyKey: null,
      amount: "5",
      currency: "EUR",
      policy: null,
      agentExplanation: null,
      explanation: null,
      delegationId: null,
      taskObjectId: signed[0]!.id,
      proposalObjectId: signed[1]!.id,
      expiresAt: new Date(Date.now() + 86400_000),
      observeWindowId: null,
      relaxed: false,
      gatewayInstanceId: "baseline",
      gatewayLanguageRevision: 2,
      bindingDigest: null,
    },
    objects: signed.slice(0, 2).map((o, i) => ({ objectId: o.id, type: i ? "PROPOSAL" : "TASK", object: o })),
    receipt: {
      id: randomUUID(),
      kind: "authorization",
      receiptObjectId: signed[2]!.id,
      threadId: signed[0]!.id,
      headObjectId: signed[1]!.id,
      outcome: "pending",
      issuerKid: signer.kid,
      bundle: Buffer.from(template.bundle),
      bundleSha256: sha256Digest(template.bundle),
      verifiedAtIssuance: null,
    },
    approval: null,
    events: [
      { type: "action.authorized", data: { protected_action_id: id } },
      { type: "receipt.created", data: { protected_action_id: id } },
    ],
    monthlyLimit: null,
  };
  await recordDecision(pool, write);
  return { allowed: true, status: "authorized", protected_action_id: id, receipt_object_id: signed[2]!.id };
});
const upstream = process.env.UPSTREAM_URL ? new URL(process.env.UPSTREAM_URL) : undefined;
const upstreamAgent = new Agent({ keepAlive: true });

/** One JSON-RPC POST to the upstream on a kept-alive connection; its answer parsed. */
function forward(text: string): Promise<{ result?: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: upstream!.hostname,
        port: upstream!.port,
        path: upstream!.pathname,
        method: "POST",
        agent: upstreamAgent,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

if (minimal && upstream)
  app.post("/mcp", async (request) => {
    const call = request.body as { id: number | string; params: { arguments?: unknown } };
    const id = randomUUID();
    await minimalDecision(request.headers.authorization, call.params.arguments, id);
    const answer = await forward(JSON.stringify({ ...call, params: { ...call.params, name: upstreamTool } }));
    // The RESULT and its receipt: the result's digest in signed bodies, one insert, synchronous commit.
    const resultDigest = sha256Digest(canonicalJson(answer.result ?? null));
    const signed = signAll(
      [
        { ...(template.proposal as object), result_digest: resultDigest },
        { ...(template.receipt as object), result_digest: resultDigest },
      ],
      id,
    );
    await pool.query({
      ...MINIMAL_INSERT,
      values: [randomUUID(), Buffer.from(JSON.stringify({ signed, id }))],
    });
    return { jsonrpc: "2.0", id: call.id, result: answer.result };
  });
await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT) });
process.on(
  "SIGTERM",
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
