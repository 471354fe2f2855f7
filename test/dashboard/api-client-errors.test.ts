/**
 * The dashboard's browser-side error codes (SPEC 7.4: NETWORK_ERROR, ABORTED, INVALID_RESPONSE,
 * HTTP_<status>, SESSION_CHANGED): the dashboard's Cloud API client (dashboard/src/api/cloud.ts on
 * @countersign/client/cloud), bundled as the dashboard bundles it, runs in Chromium against a real
 * HTTP server on 127.0.0.1 that misbehaves the ways a proxy, a dropped connection or a person
 * leaving a page do. Nothing of fetch is replaced; each answer is what the browser really received.
 * Every answer is validated by its wire schema (an answer of the wrong shape is INVALID_RESPONSE);
 * the person's sentence for each code is checked too, and what the tab adds: a change refused
 * before it is sent when another tab switched accounts, the session ended on UNAUTHENTICATED only.
 */
import { createServer, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../fixtures/chromium.js";

const cloud = fileURLToPath(new URL("../../dashboard/src/api/cloud.ts", import.meta.url));
const errors = fileURLToPath(new URL("../../dashboard/src/api/errors.ts", import.meta.url));
const marker = fileURLToPath(new URL("../../dashboard/src/session/account-marker.ts", import.meta.url));
const wire = fileURLToPath(new URL("../../protocol/src/wire/index.ts", import.meta.url));

let browser: Browser;
let page: Page;
let base: string;
let script: string;
/** Requests of /api/v1/hang held open, answered never (the page aborts them). */
const hanging: ServerResponse[] = [];
let hangArrived: () => void = () => undefined;
/** Requests that reached the server, by path. */
const arrived: string[] = [];

const server = createServer((req, res) => {
  const path = req.url ?? "/";
  if (path === "/") {
    res
      .writeHead(200, { "content-type": "text/html" })
      .end('<!doctype html><script src="/client.js"></script>');
    return;
  }
  if (path === "/client.js") {
    res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    return;
  }
  arrived.push(path);
  switch (path) {
    case "/api/v1/html":
      // A captive portal or a proxy's page with 200.
      return void res
        .writeHead(200, { "content-type": "text/html" })
        .end("<html>sign in to the Wi-Fi</html>");
    case "/api/v1/empty":
      return void res.writeHead(200, { "content-type": "application/json" }).end();
    case "/api/v1/scalar":
      return void res.writeHead(200, { "content-type": "application/json" }).end("42");
    case "/api/v1/bad-gateway":
      return void res.writeHead(502, { "content-type": "text/plain" }).end("Bad Gateway");
    case "/api/v1/teapot":
      // JSON, but not the Cloud API's error body.
      return void res
        .writeHead(418, { "content-type": "application/json" })
        .end('{"message":"short and stout"}');
    case "/api/v1/service-error":
      return void res
        .writeHead(409, { "content-type": "application/json" })
        .end('{"error":{"code":"NAME_TAKEN","message":"name in use"}}');
    case "/api/v1/ok":
      return void res.writeHead(200, { "content-type": "application/json" }).end('{"message":"fine"}');
    case "/api/v1/wrong-shape":
      // JSON, 200, but not the answer's schema (a proxy's or an older API's body).
      return void res.writeHead(200, { "content-type": "application/json" }).end('{"fine":true}');
    case "/api/v1/session-over":
      return void res
        .writeHead(401, { "content-type": "application/json" })
        .end('{"error":{"code":"UNAUTHENTICATED","message":"no valid session"}}');
    case "/api/v1/wrong-password":
      return void res
        .writeHead(401, { "content-type": "application/json" })
        .end('{"error":{"code":"INVALID_CREDENTIALS","message":"wrong password"}}');
    case "/api/v1/reset":
      // The connection drops before any answer.
      return void req.socket.destroy();
    case "/api/v1/hang":
      hanging.push(res);
      hangArrived();
      return;
    default:
      res.writeHead(404).end();
  }
});

beforeAll(async () => {
  const bundled = await build({
    stdin: {
      contents: `import { cloud, onSessionEnded, setTabSession } from ${JSON.stringify(cloud)};
                 import { messageOf } from ${JSON.stringify(errors)};
                 import { currentAccount, markAccount } from ${JSON.stringify(marker)};
                 import { acceptedSchema } from ${JSON.stringify(wire)};
                 globalThis.ended = 0;
                 onSessionEnded(() => globalThis.ended++);
                 globalThis.dashboardApi = {
                   apiRequest: (method, path, opts) => cloud.request(method, path, acceptedSchema, opts),
                   apiDownload: (path) => cloud.download(path),
                   messageOf, setTabSession, markAccount, currentAccount,
                 };`,
      resolveDir: fileURLToPath(new URL("../../dashboard/src", import.meta.url)),
      loader: "ts",
    },
    bundle: true,
    // The workspace packages' sources, as the dashboard's build takes them.
    conditions: ["countersign-source"],
    format: "iife",
    platform: "browser",
    write: false,
  });
  script = bundled.outputFiles[0]!.text;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(base);
  await page.waitForFunction(() => "dashboardApi" in globalThis);
}, 60_000);
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await browser?.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

interface Outcome {
  ok?: unknown;
  name?: string;
  code?: string;
  status?: number | null;
  text?: string;
}

/** Calls the dashboard's client in the page and reports what it returned or threw, as shown. */
function request(path: string, method = "GET", download = false): Promise<Outcome> {
  return page.evaluate(
    async ({ path, method, download }) => {
      const api = (
        globalThis as unknown as { dashboardApi: Record<string, (...a: unknown[]) => Promise<unknown>> }
      ).dashboardApi;
      try {
        const ok = download ? await api.apiDownload!(path) : await api.apiRequest!(method, path);
        return { ok: download ? "bytes" : ok };
      } catch (err) {
        const e = err as { name: string; status?: number };
        const shown = (api.messageOf as unknown as (x: unknown) => { code: string; text: string })(err);
        return { name: e.name, code: shown.code, status: e.status || null, text: shown.text };
      }
    },
    { path, method, download },
  );
}

describe("the dashboard's Cloud API client in Chromium", () => {
  it("a well-formed answer and a Cloud API error body are what they say (the control)", async () => {
    expect(await request("/ok")).toEqual({ ok: { message: "fine" } });
    expect(await request("/service-error", "POST")).toMatchObject({
      name: "CloudApiError",
      code: "NAME_TAKEN",
      status: 409,
    });
  });

  it.each(["/html", "/empty", "/scalar", "/wrong-shape"])(
    "INVALID_RESPONSE for a 2xx answer that is not the answer's schema (%s)",
    async (path) => {
      expect(await request(path)).toEqual({
        name: "CloudApiError",
        code: "INVALID_RESPONSE",
        status: 200,
        text: "The service answered with something the dashboard cannot read. Try again; if it persists, tell your administrator.",
      });
    },
  );

  it("HTTP_<status> for an error answer without the Cloud API's error body", async () => {
    expect(await request("/bad-gateway", "POST")).toEqual({
      name: "CloudApiError",
      code: "HTTP_502",
      status: 502,
      text: "The service answered with an unexpected HTTP status 502. Try again later.",
    });
    expect(await request("/teapot")).toMatchObject({ code: "HTTP_418", status: 418 });
    expect(await request("/bad-gateway", "GET", true)).toMatchObject({ code: "HTTP_502", status: 502 });
  });

  it("NETWORK_ERROR when the connection drops before an answer", async () => {
    const expected = {
      name: "CloudApiError",
      code: "NETWORK_ERROR",
      status: null,
      text: "The service could not be reached. Check your connection and try again.",
    };
    expect(await request("/reset")).toEqual(expected);
    expect(await request("/reset", "GET", true)).toEqual(expected);
  });

  it("ABORTED when the page stops a request it sent (for example on leaving the view)", async () => {
    const held = new Promise<void>((r) => (hangArrived = r));
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        dashboardApi: {
          apiRequest: (...a: unknown[]) => Promise<unknown>;
          messageOf: (e: unknown) => { code: string };
        };
        stop: AbortController;
        pending: Promise<unknown>;
      };
      g.stop = new AbortController();
      g.pending = g.dashboardApi.apiRequest("GET", "/hang", { signal: g.stop.signal }).then(
        () => ({ ok: true }),
        (err: { name: string; status?: number }) => ({
          name: err.name,
          code: g.dashboardApi.messageOf(err).code,
          status: err.status || null,
        }),
      );
    });
    // The server holds the request: only the page's abort can end it.
    await held;
    const outcome = await page.evaluate(() => {
      const g = globalThis as unknown as { stop: AbortController; pending: Promise<unknown> };
      g.stop.abort();
      return g.pending;
    });
    expect(outcome).toEqual({ name: "CloudApiError", code: "ABORTED", status: null });
  });

  it("SESSION_CHANGED: a change is refused before it is sent when another tab signed in as someone else", async () => {
    // This tab loaded as u-1; the browser's account marker (shared by tabs) now names u-2.
    await page.evaluate(() => {
      const api = (globalThis as unknown as { dashboardApi: Record<string, (...a: unknown[]) => void> })
        .dashboardApi;
      api.setTabSession!({ userId: "u-1", csrfToken: "csrf-1", accountNow: api.currentAccount });
      api.markAccount!("u-2");
    });
    const before = arrived.filter((p) => p === "/api/v1/ok").length;
    expect(await request("/ok", "POST")).toMatchObject({ name: "DashboardError", code: "SESSION_CHANGED" });
    expect(arrived.filter((p) => p === "/api/v1/ok").length).toBe(before);
    // Reading stays possible (nothing changes); and the same account again may change things.
    expect(await request("/ok")).toEqual({ ok: { message: "fine" } });
    await page.evaluate(() =>
      (globalThis as unknown as { dashboardApi: Record<string, (...a: unknown[]) => void> }).dashboardApi
        .markAccount!("u-1"),
    );
    expect(await request("/ok", "POST")).toEqual({ ok: { message: "fine" } });
    expect(arrived.filter((p) => p === "/api/v1/ok").length).toBe(before + 2);
  });

  it("ends the tab's session on UNAUTHENTICATED, not on another 401 (a wrong password)", async () => {
    const ended = () => page.evaluate(() => (globalThis as unknown as { ended: number }).ended);
    const start = await ended();
    expect(await request("/wrong-password", "POST")).toMatchObject({
      code: "INVALID_CREDENTIALS",
      status: 401,
    });
    expect(await ended()).toBe(start);
    expect(await request("/session-over")).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
    expect(await ended()).toBe(start + 1);
  });
});
