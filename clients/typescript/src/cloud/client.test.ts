/**
 * The one Cloud API client against a real Cloud API (real PostgreSQL): answers validated by their
 * wire schema, the spec's error body as a CloudApiError with its request id and Retry-After, and the
 * client's own codes. Two answers the Cloud API never gives (a success of the wrong shape, a proxy's
 * HTML 502) come from a tiny local HTTP server standing in for a broken deployment.
 */
import { createServer, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acceptedSchema,
  agentAnswerSchema,
  agentListSchema,
  emailVerifiedSchema,
  organizationAnswerSchema,
  organizationListSchema,
  sessionAnswerSchema,
} from "@countersign/protocol/wire";
import { createTestDatabase, type TestDatabase } from "../../../../test/setup/database.js";
import { DASHBOARD, randomIp, startCloudApi, type CloudApi } from "../../../../test/fixtures/cloud-api.js";
import { CloudApiError, createCloudClient, noContent, type CloudClient } from "./index.js";

/** A call expected to fail: its answer would be a test failure. */
const unexpected = (answer: unknown): never => {
  throw new Error(`expected a CloudApiError, got ${JSON.stringify(answer)}`);
};

let db: TestDatabase;
let api: CloudApi;
let stub: Server;
let stubBase: string;

interface BrowserClient {
  client: CloudClient;
  /** Every status onAnswer was told, in order. */
  statuses: number[];
  session: { cookie: string; csrf: string };
}

/** A browser's client: its own address, the session cookie, the dashboard's Origin and csrf token. */
function browserClient(): BrowserClient {
  const ip = randomIp();
  const session = { cookie: "", csrf: "" };
  const statuses: number[] = [];
  const client = createCloudClient({
    baseUrl: api.base,
    headers: (method) => ({
      "x-forwarded-for": ip,
      ...(session.cookie ? { cookie: session.cookie } : {}),
      ...(method === "GET" ? {} : { origin: DASHBOARD }),
      ...(method !== "GET" && session.csrf ? { "x-service-csrf": session.csrf } : {}),
    }),
    // Node's fetch keeps no cookies: take the session's from the answer, as a browser would.
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const set = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="));
      if (set) session.cookie = set.split(";")[0]!;
      return res;
    },
    onAnswer: (status) => statuses.push(status),
  });
  return { client, statuses, session };
}

async function signedIn(): Promise<BrowserClient> {
  const b = browserClient();
  const email = `c-${randomBytes(5).toString("hex")}@example.test`;
  const password = "correct horse battery staple";
  await b.client.post("/auth/signup", acceptedSchema, { body: { email, password } });
  await b.client.post("/auth/email/verify", emailVerifiedSchema, {
    body: { token: api.smtp.lastToken(email, "verify-email") },
  });
  const { session } = await b.client.post("/auth/signin", sessionAnswerSchema, { body: { email, password } });
  b.session.csrf = session.csrf_token;
  return b;
}

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
  stub = createServer((req, res) => {
    if (req.url === "/api/v1/wrong-shape") {
      res.writeHead(200, { "content-type": "application/json", "x-request-id": "stub-1" });
      res.end(JSON.stringify({ organization: { id: 42, secret_value: "never-in-an-error" } }));
    } else if (req.url === "/api/v1/not-json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{half");
    } else {
      res.writeHead(502, { "content-type": "text/html", "retry-after": "7" });
      res.end("<html>Bad Gateway</html>");
    }
  });
  await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
  const address = stub.address();
  stubBase = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => stub?.close(resolve));
  await api?.close();
  await db?.drop();
});

describe("the Cloud API client", () => {
  it("returns answers validated by their wire schema and tells every status to onAnswer", async () => {
    const { client, statuses } = await signedIn();
    const { organization } = await client.post("/orgs", organizationAnswerSchema, {
      body: { name: "Client Co" },
    });
    expect(organization.name).toBe("Client Co");
    const orgs = await client.get("/orgs", organizationListSchema);
    expect(orgs.items.map((o) => o.id)).toEqual([organization.id]);
    // The query string: `limit` sent, `cursor` left out while undefined, then sent.
    const agents = `/orgs/${encodeURIComponent(organization.id)}/agents`;
    for (const name of ["first", "second"]) await client.post(agents, agentAnswerSchema, { body: { name } });
    const first = await client.get(agents, agentListSchema, { query: { limit: 1, cursor: undefined } });
    expect(first.items.map((a) => a.name)).toEqual(["second"]);
    const rest = await client.get(agents, agentListSchema, {
      query: { limit: 1, cursor: first.next_cursor! },
    });
    expect(rest.items.map((a) => a.name)).toEqual(["first"]);
    expect(statuses).toEqual([202, 200, 200, 201, 200, 201, 201, 200, 200]);
    // A 204 validates as nothing.
    await expect(client.post("/auth/signout", noContent)).resolves.toBeUndefined();
  });

  it("turns the spec's error body into a CloudApiError with code, message, details and request id", async () => {
    const { client } = await signedIn();
    const missing = await client
      .get(`/orgs/${encodeURIComponent("00000000-0000-4000-8000-000000000000")}`, organizationAnswerSchema, {
        headers: { "x-request-id": "client-test-1" },
      })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CloudApiError);
    expect(missing).toMatchObject({ status: 404, requestId: "client-test-1" });
    expect((missing as CloudApiError).code).toMatch(/NOT_FOUND$/);

    const bad = await client
      .post("/orgs", organizationAnswerSchema, { body: { name: "" } })
      .then(unexpected, (e: CloudApiError) => e);
    expect(bad).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect(bad.message.length).toBeGreaterThan(0);
    expect(bad.details).toBeDefined();
    expect(bad.requestId).toMatch(/.+/);
    // The refused create changed nothing.
    expect((await client.get("/orgs", organizationListSchema)).items).toEqual([]);
  });

  it("carries Retry-After of a 429 as retryAfterSeconds", async () => {
    const { client } = browserClient();
    const email = `r-${randomBytes(5).toString("hex")}@example.test`;
    let refused: CloudApiError | undefined;
    // 10 sign-ins per 15 minutes per e-mail and address (SPEC 8.1): the 11th is refused.
    for (let i = 0; i < 11 && !refused; i++)
      refused = await client
        .post("/auth/signin", sessionAnswerSchema, { body: { email, password: "not the password at all" } })
        .then(
          () => undefined,
          (e: CloudApiError) => (e.status === 429 ? e : undefined),
        );
    expect(refused).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(refused!.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused!.details?.retry_after_seconds).toBe(refused!.retryAfterSeconds);
  });

  it("refuses a success answer its schema does not accept, naming where and not the values", async () => {
    const client = createCloudClient({ baseUrl: stubBase });
    const wrong = await client
      .get("/wrong-shape", organizationAnswerSchema)
      .then(unexpected, (e: CloudApiError) => e);
    expect(wrong).toMatchObject({ status: 200, code: "INVALID_ANSWER", requestId: "stub-1" });
    expect(wrong.message).toContain("organization.id");
    expect(JSON.stringify(wrong.details) + wrong.message).not.toContain("never-in-an-error");
    await expect(client.get("/not-json", organizationAnswerSchema)).rejects.toMatchObject({
      code: "INVALID_ANSWER",
    });
  });

  it("names an error answer without the spec's body by its status", async () => {
    const client = createCloudClient({ baseUrl: stubBase });
    await expect(client.get("/proxy", organizationAnswerSchema)).rejects.toMatchObject({
      status: 502,
      code: "HTTP_502",
      retryAfterSeconds: 7,
    });
  });

  it("reports no answer at all as NETWORK_ERROR, and the caller's abort as ABORTED", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const address = closed.address();
    await new Promise((resolve) => closed.close(resolve));
    const gone = createCloudClient({
      baseUrl: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    });
    await expect(gone.get("/orgs", organizationListSchema)).rejects.toMatchObject({
      status: 0,
      code: "NETWORK_ERROR",
      message: expect.stringContaining("ECONNREFUSED"),
    });

    const client = createCloudClient({ baseUrl: api.base });
    await expect(
      client.get("/orgs", organizationListSchema, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ status: 0, code: "ABORTED" });
  });

  it("downloads a file's bytes with the same errors", async () => {
    const client = createCloudClient({ baseUrl: stubBase });
    const { bytes, headers } = await client.download("/wrong-shape");
    expect(new TextDecoder().decode(bytes)).toContain("secret_value");
    expect(headers.get("x-request-id")).toBe("stub-1");
    await expect(client.download("/proxy")).rejects.toMatchObject({ code: "HTTP_502" });
  });
});
