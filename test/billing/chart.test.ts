/**
 * Billing in the chart (docs/billing.md): off by default; with `api.billing` the api gets the
 * Stripe secrets from the installer's Secret (never from values) and the prices as settings that
 * load into a working billing configuration; half a configuration is refused by name.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../core/src/config/index.js";
import { apiSettings } from "../../api/src/config.js";
import { billingOptionsFrom } from "../../api/src/billing/config.js";
import { chartDir, find, helm, releaseNamespace, render, type K8sObject } from "../chart/helm.js";

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
const apiEnv = (objects: K8sObject[]): EnvVar[] =>
  find(objects, "Deployment", "countersign-api").spec.template.spec.containers[0].env;
const billingValues = [
  "--set",
  "api.billing.existingSecret=countersign-stripe",
  "--set",
  "api.billing.prices.startup=price_startup1",
  "--set",
  "api.billing.prices.growth=price_growth1",
];

describe("billing in the chart", () => {
  it("is off by default: no Stripe setting reaches the api", async () => {
    const env = apiEnv(await render(["--set", "database.existingSecret=db"]));
    expect(env.filter((e) => e.name.includes("STRIPE"))).toEqual([]);
  });

  it("takes the secrets from the named Secret and the prices from values, as settings that load", async () => {
    const objects = await render(["--set", "database.existingSecret=db", ...billingValues]);
    const env = apiEnv(objects);
    const stripe = env.filter((e) => e.name.includes("STRIPE"));
    expect(stripe).toEqual([
      {
        name: "COUNTERSIGN_STRIPE_SECRET_KEY",
        valueFrom: { secretKeyRef: { name: "countersign-stripe", key: "COUNTERSIGN_STRIPE_SECRET_KEY" } },
      },
      {
        name: "COUNTERSIGN_STRIPE_WEBHOOK_SECRET",
        valueFrom: { secretKeyRef: { name: "countersign-stripe", key: "COUNTERSIGN_STRIPE_WEBHOOK_SECRET" } },
      },
      { name: "COUNTERSIGN_STRIPE_PRICES", value: "growth=price_growth1,startup=price_startup1" },
    ]);
    // What the Secret would hold, and the settings the api loads from them.
    const fromSecret: Record<string, string> = {
      COUNTERSIGN_STRIPE_SECRET_KEY: "sk_live_abc123",
      COUNTERSIGN_STRIPE_WEBHOOK_SECRET: "whsec_abc123",
    };
    const environment: NodeJS.ProcessEnv = {
      DATABASE_URL: "postgres://countersign@db.example:5432/countersign",
      COUNTERSIGN_KEY_HASH_SECRET: Buffer.alloc(32, 1).toString("base64url"),
      COUNTERSIGN_CREDENTIAL_KEY: Buffer.alloc(32, 2).toString("base64url"),
    };
    for (const e of stripe) environment[e.name] = e.value ?? fromSecret[e.name];
    const billing = billingOptionsFrom(loadConfig(apiSettings, environment));
    expect(billing).toEqual({
      secretKey: "sk_live_abc123",
      webhookSecret: "whsec_abc123",
      prices: { startup: "price_startup1", growth: "price_growth1" },
      apiUrl: undefined,
    });
    // The secrets are nowhere in the rendered objects.
    expect(JSON.stringify(objects)).not.toContain("sk_live");
  });

  it("refuses half a billing configuration and a malformed price, naming the key", async () => {
    const refused = async (args: string[], mention: string) => {
      const res = await helm(["template", "countersign", chartDir, "--namespace", releaseNamespace, ...args]);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain(mention);
    };
    await refused(
      ["--set", "database.existingSecret=db", "--set", "api.billing.existingSecret=s"],
      "api.billing.prices",
    );
    await refused(
      ["--set", "database.existingSecret=db", "--set", "api.billing.prices.startup=price_x"],
      "api.billing.existingSecret",
    );
    await refused(
      [...billingValues, "--set", "database.existingSecret=db", "--set", "api.billing.prices.scale=prod_1"],
      "scale",
    );
  });
});
