import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { quotas } from "./quotas.js";

// The quota tables are read from the spec itself, the later (correcting) table winning.
const spec = readFileSync(new URL("../../../docs/spec.md", import.meta.url), "utf8");
const section = spec.slice(spec.indexOf("### 8.6 Plan quotas"), spec.indexOf("### 8.7"));

function row(label: string): string[] {
  const lines = section.split("\n").filter((l) => l.startsWith(`| ${label} |`));
  const last = lines[lines.length - 1];
  if (!last) throw new Error(`no row ${label}`);
  return last
    .split("|")
    .slice(2, 7)
    .map((c) => c.trim());
}

const toNumber = (c: string) => (c === "unlimited" ? null : Number(c.replace(/ days$/, "")));
const order = ["developer", "startup", "growth", "scale", "enterprise"] as const;

describe("plan quotas match SPEC 8.6", () => {
  it.each([
    ["protected actions per month", "protectedActionsPerMonth"],
    ["members", "members"],
    ["API keys (not revoked)", "apiKeys"],
    ["webhook endpoints", "webhookEndpoints"],
    ["agents", "agents"],
    ["MCP servers", "mcpServers"],
    ["tools", "tools"],
    ["policies", "policies"],
    ["operational data retention", "retentionDays"],
  ] as const)("%s", (label, key) => {
    const cells = row(label).map(toNumber);
    expect(order.map((p) => quotas[p][key])).toEqual(cells);
  });
});
