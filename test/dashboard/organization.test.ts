/**
 * The organization's own pages in Chromium against the real services: management keys made with
 * their scopes and shown once, the audit log for admins only, the overview's charts of real
 * decisions taken by the Gateway and the usage against the plan's monthly limit, the billing
 * status, and a record written by the operator's ServiceAccount (reviewed by a real kube-apiserver)
 * shown as managed by Kubernetes with the drift warning. Then what a viewer is shown, keyboard
 * navigation, and axe-core over these pages and those of part 1.
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startControlPlane, type ControlPlane } from "../control-plane/index.js";
import {
  mailedLink,
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import {
  kubernetesTokenReviewer,
  operatorUsername,
  setUpOperatorIdentity,
  type OperatorIdentity,
} from "../fixtures/operator.js";
import { configureDecisionOnlyRefunds, sessionRequest } from "./setup-refunds.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const NAMESPACE = "payments-team";

let plane: ControlPlane;
let identity: OperatorIdentity;
let world: DashboardWorld;
let dir: string;
let orgId: string;
let owner: Page;
let viewer: Page;
let managedAgentId: string;
/** Pages of records the operator wrote (set by the Kubernetes test), visited by the viewer too. */
const operatorPages: string[] = [];
let handMadeAgentId: string;

async function joinAs(role: "viewer", email = newEmail(role)): Promise<Page> {
  await sessionRequest(owner, "POST", `/orgs/${orgId}/invitations`, { email, role });
  const link = await mailedLink(world, email, "invitations/accept");
  const { page } = await world.person();
  await signUpInBrowser(world, page, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await page.getByTestId("role").getByText(role).waitFor();
  return page;
}

/** A call as the operator makes it: its ServiceAccount token, naming the resource it reconciles. */
async function asOperator(method: string, path: string, body: unknown, managedBy?: string) {
  const res = await fetch(`${world.origin}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${identity.token}`,
      "content-type": "application/json",
      ...(managedBy ? { "countersign-managed-by": managedBy } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** axe-core's serious and critical violations of the page as it is now. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the dashboard's CSP rightly refuses inline scripts.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) => `${page.url()}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
    );
}

beforeAll(async () => {
  plane = await startControlPlane();
  identity = await setUpOperatorIdentity(plane);
  world = await startDashboardWorld({
    tokenReviewer: kubernetesTokenReviewer(plane, plane.adminCredentials),
  });
  dir = mkdtempSync(join(tmpdir(), "countersign-organization-"));
  owner = (await world.person()).page;
  await signUpInBrowser(world, owner, newEmail("owner"));
  await owner.getByLabel("Name").fill("Operations Inc");
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.getByRole("button", { name: "Create the principal" }).click();
  await owner.getByRole("link", { name: "Download the key backup" }).click();
  await owner.getByRole("button", { name: "Register the principal" }).click();
  await owner.getByTestId("principal-held").waitFor();
  orgId = new URL(owner.url()).pathname.split("/")[2]!;

  // Real decisions for the overview: an agent with a gateway key and a delegation, calls through the Gateway.
  const { policyId } = await configureDecisionOnlyRefunds(owner, orgId);
  const agent = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, { name: "refund-bot", policy_id: policyId })
  ).agent;
  handMadeAgentId = agent.id;
  const gatewayKey = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/api-keys`, {
      name: "bot",
      kind: "gateway",
      agent_id: agent.id,
    })
  ).secret;
  await owner.goto(`/orgs/${orgId}/agents/${agent.id}`);
  await owner.getByLabel(/^Permissions/).fill("payments.*");
  await owner.getByRole("button", { name: "Sign and grant" }).click();
  await owner.getByTestId("delegations").getByText("payments.*").waitFor();
  // An approver with a key bound, so large refunds are held rather than refused.
  await owner.goto("/account");
  await owner.getByRole("button", { name: "Make and bind a key in this browser" }).click();
  await owner.getByTestId("identities").getByText("in this browser").waitFor();
  for (const [order, amount] of [
    ["A-1", 20],
    ["A-2", 30],
    ["A-3", 40],
    ["H-1", 500],
    ["H-2", 600],
  ] as const) {
    const res = await world.gateway.authorize(gatewayKey, {
      tool: "refund_payment",
      arguments: { amount, order },
      idempotency_key: order,
    });
    expect(res.body.status).toBe(amount > 100 ? "approval_pending" : "authorized");
  }

  // The owner binds the operator's ServiceAccount; the operator then writes an agent for its Agent resource.
  await sessionRequest(owner, "POST", `/orgs/${orgId}/operator-bindings`, {
    username: operatorUsername,
    role: "admin",
  });
  const written = await asOperator(
    "POST",
    `/orgs/${orgId}/agents`,
    { name: "invoice-bot" },
    `Agent/${NAMESPACE}/invoice-bot`,
  );
  expect(written.status).toBe(201);
  managedAgentId = written.body.agent.id;

  viewer = await joinAs("viewer");
}, 300_000);

afterAll(async () => {
  await world?.close();
  await plane?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("organization pages", () => {
  it("makes a management key with its scopes and shows its secret once", { timeout: 60_000 }, async () => {
    await owner.goto(`/orgs/${orgId}`);
    await owner
      .getByRole("navigation", { name: "Organization" })
      .getByRole("link", { name: "Management keys" })
      .click();
    await owner.getByRole("heading", { name: "Management keys" }).waitFor();
    await owner.getByLabel("Key name").fill("ci-policies");
    // read is preselected; add policies:write.
    await owner.getByRole("checkbox", { name: /policies:write/ }).check();
    await owner.getByRole("button", { name: "Create management key" }).click();
    const secret = (await owner.getByTestId("secret").textContent())!;
    expect(secret).toMatch(/^svc_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    const row = owner.getByTestId("management-keys").getByRole("row", { name: /ci-policies/ });
    await expect(row.textContent()).resolves.toContain("read, policies:write");
    await screenshot(owner, "management-keys", dir);

    // The key does what its scopes allow and nothing else.
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${world.origin}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await call("GET", `/orgs/${orgId}/overview`)).status).toBe(200);
    const refused = await call("POST", `/orgs/${orgId}/agents`, { name: "not-allowed" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");

    // Shown once: after a reload the page has the key's prefix, never the secret.
    await owner.reload();
    await owner.getByTestId("management-keys").waitFor();
    expect(await owner.content()).not.toContain(secret);
    await expect(owner.getByTestId("secret").count()).resolves.toBe(0);
  });

  it(
    "shows the audit log to admins, with the operator as actor, and not to a viewer",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/audit`);
      const log = owner.getByTestId("audit-log");
      await log.getByText("api_key.created").first().waitFor();
      const operatorRow = log
        .getByRole("row", { name: /agent\.created/ })
        .filter({ has: owner.getByTestId("operator-actor") });
      await expect(operatorRow.textContent()).resolves.toContain(operatorUsername);
      await expect(operatorRow.textContent()).resolves.toContain(managedAgentId);
      await screenshot(owner, "audit-log", dir);
      // Filtered to one action.
      await owner.getByLabel("Action").fill("operator.bound");
      await owner.getByRole("button", { name: "Filter" }).click();
      await expect.poll(() => log.getByRole("row").count()).toBe(2);
      await expect(log.textContent()).resolves.toContain("operator.bound");

      await viewer.goto(`/orgs/${orgId}`);
      const nav = viewer.getByRole("navigation", { name: "Organization" });
      await nav.getByRole("link", { name: "Overview" }).waitFor();
      await expect(nav.getByRole("link", { name: "Audit log" }).count()).resolves.toBe(0);
      await viewer.goto(`/orgs/${orgId}/audit`);
      await viewer.getByText("Only owners and admins read the audit log.").waitFor();
      await expect(viewer.getByTestId("audit-log").count()).resolves.toBe(0);
      await expect(sessionRequest(viewer, "GET", `/orgs/${orgId}/audit`)).rejects.toThrow(/403/);
    },
  );

  it(
    "charts the decisions the Gateway took, by status, and usage against the plan's monthly limit",
    { timeout: 60_000 },
    async () => {
      // A plan with a monthly limit (no billing provider here: the plan is set as billing would).
      await world.db.pool.query("update organizations set plan = 'startup' where id = $1", [orgId]);
      await owner.goto(`/orgs/${orgId}`);
      const chart = owner.getByTestId("decisions-chart");
      await chart.waitFor();
      await expect(owner.getByTestId("decisions-total").textContent()).resolves.toBe("5");
      await expect(owner.getByTestId("status-authorized").textContent()).resolves.toBe("3");
      await expect(owner.getByTestId("status-pending_approval").textContent()).resolves.toBe("2");
      // Today's bar holds all five, drawn as two stacked parts.
      const today = new Date().toISOString().slice(0, 10);
      const bar = chart.locator(`g[data-day="${today}"]`);
      await expect(bar.getAttribute("data-total")).resolves.toBe("5");
      await expect(bar.locator("rect").count()).resolves.toBe(2);
      await expect(chart.locator("g[data-day]").count()).resolves.toBe(30);
      const heights = await bar
        .locator("rect")
        .evaluateAll((rs) =>
          Object.fromEntries(
            rs.map((r) => [r.getAttribute("data-status"), Number(r.getAttribute("height"))]),
          ),
        );
      expect(heights.authorized! / heights.pending_approval!).toBeCloseTo(3 / 2, 5);

      const usage = owner.getByTestId("usage-chart");
      await expect(usage.getByTestId("usage-used").textContent()).resolves.toBe("5");
      await expect(usage.getByTestId("usage-limit-value").textContent()).resolves.toBe("25000");
      await usage.getByTestId("usage-limit").waitFor();
      await expect(
        usage.locator(`g[data-month="${today.slice(0, 7)}"]`).getAttribute("data-count"),
      ).resolves.toBe("5");
      await screenshot(owner, "overview", dir);

      await owner.getByRole("link", { name: "Plan and billing" }).first().click();
      await expect(owner.getByTestId("plan").textContent()).resolves.toBe("startup");
      await expect(owner.getByTestId("billing-status").textContent()).resolves.toContain("not configured");
      await expect(owner.getByTestId("allowances").textContent()).resolves.toContain("25000");
      await screenshot(owner, "billing", dir);
    },
  );

  it(
    "says which Kubernetes resource manages a record the operator wrote, and warns editors of drift",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/agents`);
      await owner
        .getByRole("row", { name: /invoice-bot/ })
        .getByText(`Kubernetes (${NAMESPACE}/invoice-bot)`)
        .waitFor();
      await expect(owner.getByRole("row", { name: /refund-bot/ }).textContent()).resolves.toContain("people");

      await owner.goto(`/orgs/${orgId}/agents/${managedAgentId}`);
      const marker = owner.getByTestId("managed-by");
      await expect(marker.getByTestId("managed-by-kind").textContent()).resolves.toBe("Agent");
      await expect(marker.getByTestId("managed-by-namespace").textContent()).resolves.toBe(NAMESPACE);
      await expect(marker.getByTestId("managed-by-name").textContent()).resolves.toBe("invoice-bot");
      await expect(marker.textContent()).resolves.toContain(
        `kubectl get agent.countersign.dev/invoice-bot -n ${NAMESPACE}`,
      );
      await expect(marker.getByTestId("drift-warning").textContent()).resolves.toContain("the operator puts");
      await screenshot(owner, "agent-managed", dir);

      // A person's edit does not remove the marker; a record people made shows none.
      await owner.getByRole("button", { name: "Save agent" }).waitFor();
      await owner.getByLabel("Status").selectOption("disabled");
      await owner.getByRole("button", { name: "Save agent" }).click();
      await owner.locator(`[data-testid="agent-status"][data-status="disabled"]`).waitFor();
      await marker.getByTestId("drift-warning").waitFor();
      await owner.goto(`/orgs/${orgId}/agents/${handMadeAgentId}`);
      await owner.getByRole("heading", { name: "refund-bot" }).waitFor();
      await expect(owner.getByTestId("managed-by").count()).resolves.toBe(0);

      // A viewer is told who manages it, without the editor's warning (they cannot edit).
      await viewer.goto(`/orgs/${orgId}/agents/${managedAgentId}`);
      await viewer.getByTestId("managed-by").waitFor();
      await expect(viewer.getByTestId("drift-warning").count()).resolves.toBe(0);
    },
  );

  it(
    "says so on the pages of a policy and an integration the operator wrote, with the drift warning",
    { timeout: 60_000 },
    async () => {
      const server = await asOperator(
        "POST",
        `/orgs/${orgId}/mcp-servers`,
        { kind: "decision_only", name: "ledger" },
        `MCPServer/${NAMESPACE}/ledger`,
      );
      expect(server.status, JSON.stringify(server.body)).toBe(201);
      const policy = await asOperator(
        "POST",
        `/orgs/${orgId}/policies`,
        { name: "ledger-rules", document: { revision: 1, default_effect: "deny", rules: [] } },
        `Policy/${NAMESPACE}/ledger-rules`,
      );
      expect(policy.status, JSON.stringify(policy.body)).toBe(201);
      const pages: Array<[string, string, string]> = [
        [`/orgs/${orgId}/mcp-servers/${server.body.mcp_server.id}`, "MCPServer", "ledger"],
        [`/orgs/${orgId}/policies/${policy.body.policy.id}`, "Policy", "ledger-rules"],
      ];
      operatorPages.push(...pages.map(([path]) => path));
      for (const [path, kind, name] of pages) {
        await owner.goto(path);
        const marker = owner.getByTestId("managed-by");
        await marker.waitFor();
        await expect(marker.getByTestId("managed-by-kind").textContent(), path).resolves.toBe(kind);
        await expect(marker.getByTestId("managed-by-name").textContent(), path).resolves.toBe(name);
        await expect(marker.getByTestId("managed-by-namespace").textContent(), path).resolves.toBe(NAMESPACE);
        await marker.getByTestId("drift-warning").waitFor();
        // A viewer is told who manages it, without the warning.
        await viewer.goto(path);
        await viewer.getByTestId("managed-by").waitFor();
        await expect(viewer.getByTestId("drift-warning").count(), path).resolves.toBe(0);
      }
    },
  );

  it("shows a viewer no write action on these pages", { timeout: 60_000 }, async () => {
    const pages: [string, string][] = [
      ["", "Operations Inc"],
      ["/keys", "Management keys"],
      ["/audit", "Audit log"],
      ["/billing", "Plan and billing"],
      [`/agents/${managedAgentId}`, "invoice-bot"],
    ];
    for (const [path, heading] of pages) {
      await viewer.goto(`/orgs/${orgId}${path}`);
      await viewer.getByRole("heading", { name: heading, exact: true }).waitFor();
      await expect.poll(() => viewer.getByText("Loading…").count(), { message: path }).toBe(0);
      const writes = await viewer
        .locator("main")
        .getByRole("button")
        .evaluateAll((bs) => bs.map((b) => b.textContent));
      expect({ path, writes }).toEqual({ path, writes: path.startsWith("/agents") ? ["Dry run"] : [] });
    }
    // Every other page a viewer can reach: no button that would change anything.
    const writeAction =
      /save|create|add|new|delete|remove|revoke|enable|disable|activate|enforce|roll ?back|stop|approve|reject|rotate|start|end|send|redeliver|invite|authorize|discover|register|set|clear|cancel/i;
    const everywhere = [
      ...[
        "/actions",
        "/receipts",
        "/observe",
        "/agents",
        "/policies",
        "/mcp-servers",
        "/tools",
        "/principal",
      ].map((p) => `/orgs/${orgId}${p}`),
      ...operatorPages,
    ];
    for (const path of everywhere) {
      await viewer.goto(path);
      await viewer.locator("main h1").first().waitFor();
      await expect.poll(() => viewer.getByText("Loading…").count()).toBe(0);
      const buttons = await viewer
        .locator("main")
        .getByRole("button")
        .evaluateAll((bs) => bs.map((b) => (b.textContent ?? "").trim()));
      expect({ path, writes: buttons.filter((b) => writeAction.test(b)) }).toEqual({ path, writes: [] });
    }
    // The same scan finds the owner's write actions on those pages: it is not blind.
    for (const path of [`/orgs/${orgId}/agents`, ...operatorPages]) {
      await owner.goto(path);
      await owner.locator("main h1").first().waitFor();
      await expect.poll(() => owner.getByText("Loading…").count()).toBe(0);
      const buttons = await owner
        .locator("main")
        .getByRole("button")
        .evaluateAll((bs) => bs.map((b) => (b.textContent ?? "").trim()));
      expect(buttons.filter((b) => writeAction.test(b)).length, path).toBeGreaterThan(0);
    }
    const nav = viewer.getByRole("navigation", { name: "Organization" });
    for (const hidden of ["Management keys", "Audit log", "Members", "Settings", "Webhooks"])
      await expect(nav.getByRole("link", { name: hidden }).count()).resolves.toBe(0);
    await expect(sessionRequest(viewer, "GET", `/orgs/${orgId}/api-keys?kind=management`)).rejects.toThrow(
      /403/,
    );
  });

  it(
    "is usable by keyboard: a skip link first, the navigation in order, focus always visible",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}`);
      await owner.getByTestId("decisions-chart").waitFor();
      await owner.keyboard.press("Tab");
      const focused = () =>
        owner.evaluate(() => {
          const e = document.activeElement as HTMLElement;
          const style = getComputedStyle(e);
          return {
            text: e.textContent?.trim(),
            id: e.id,
            outline: style.outlineStyle,
            width: style.outlineWidth,
          };
        });
      const skip = await focused();
      expect(skip.text).toBe("Skip to content");
      expect(skip.outline).not.toBe("none");
      expect(await owner.getByRole("link", { name: "Skip to content" }).isVisible()).toBe(true);
      await owner.keyboard.press("Enter");
      expect((await focused()).id).toBe("content");
      // From the content, the next stop is the page's first control: the button that reopens the setup
      // checklist (every first step of this organization is done by now, so the checklist is hidden).
      await owner.keyboard.press("Tab");
      expect((await focused()).text).toBe("Show the setup checklist");

      // From the top again: header controls, then the navigation in its order, every stop showing focus.
      await owner.goto(`/orgs/${orgId}`);
      await owner.getByTestId("decisions-chart").waitFor();
      const stops: string[] = [];
      for (let i = 0; i < 12; i++) {
        await owner.keyboard.press("Tab");
        const f = await focused();
        expect({ stop: f.text, outline: f.outline === "none" ? "none" : "shown" }).toEqual({
          stop: f.text,
          outline: "shown",
        });
        // A navigation entry's live figure (the waiting approvals) follows its label.
        stops.push((f.text ?? "").replace(/\d+\+? waiting$/, ""));
      }
      const navStart = stops.indexOf("Overview");
      expect(navStart).toBeGreaterThan(0);
      expect(stops.slice(navStart, navStart + 5)).toEqual([
        "Overview",
        "Approvals",
        "Actions",
        "Receipts",
        "Observe",
      ]);
    },
  );

  it(
    "has no serious or critical axe-core violations on these pages and those of part 1",
    { timeout: 120_000 },
    async () => {
      const problems: string[] = [];
      const visit = async (page: Page, path: string, ready: () => Promise<void>) => {
        await page.goto(path);
        await ready();
        await expect.poll(() => page.getByText("Loading…").count()).toBe(0);
        problems.push(...(await accessibilityProblems(page)));
      };
      const heading = (page: Page, name: string) => () =>
        page.getByRole("heading", { name, exact: true }).first().waitFor();
      const o = `/orgs/${orgId}`;
      for (const [path, name] of [
        [o, "Operations Inc"],
        [`${o}/keys`, "Management keys"],
        [`${o}/audit`, "Audit log"],
        [`${o}/billing`, "Plan and billing"],
        [`${o}/agents`, "Agents"],
        [`${o}/agents/${managedAgentId}`, "invoice-bot"],
        [`${o}/approvals`, "Approvals"],
        [`${o}/actions`, "Actions"],
        [`${o}/receipts`, "Receipts"],
        [`${o}/principal`, "Organization principal"],
        [`${o}/members`, "Members"],
        [`${o}/settings`, "Settings"],
        ["/account", "Your account"],
      ] as [string, string][])
        await visit(owner, path, heading(owner, name));
      // One held request, one action and one receipt, as their pages show them.
      const approval = (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals?status=pending`))
        .items[0];
      await visit(owner, `${o}/approvals/${approval.id}`, () => owner.getByRole("heading").first().waitFor());
      await visit(owner, `${o}/actions/${approval.action.id}`, () =>
        owner.getByRole("heading").first().waitFor(),
      );
      const receipt = (await sessionRequest(owner, "GET", `/orgs/${orgId}/receipts`)).items[0];
      await visit(owner, `${o}/receipts/${receipt.id}`, () => owner.getByRole("heading").first().waitFor());
      await visit(viewer, `${o}/keys`, heading(viewer, "Management keys"));
      // The signed-out pages.
      const { page: anonymous } = await world.person();
      await visit(anonymous, "/sign-in", heading(anonymous, "Sign in"));
      await visit(anonymous, "/sign-up", heading(anonymous, "Create your account"));
      await visit(anonymous, "/verify", heading(anonymous, "Verify a receipt bundle"));
      expect(problems).toEqual([]);
    },
  );
});
