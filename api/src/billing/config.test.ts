/** Billing's settings: unset is off, half is refused naming what is missing, prices read as plan=price pairs. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "@countersign/core/config";
import { billingOptionsFrom, billingSettings, purchasablePlans } from "./config.js";

const load = (env: NodeJS.ProcessEnv) => billingOptionsFrom(loadConfig(billingSettings, env));
const full = {
  COUNTERSIGN_STRIPE_SECRET_KEY: "sk_test_abc",
  COUNTERSIGN_STRIPE_WEBHOOK_SECRET: "whsec_abc",
  COUNTERSIGN_STRIPE_PRICES: "startup=price_s1, scale=price_sc1",
};

describe("billing settings", () => {
  it("are off when none is set", () => {
    expect(load({})).toBeUndefined();
    expect(purchasablePlans(undefined)).toEqual([]);
  });

  it("read the prices of the plans sold, in the spec's order", () => {
    const b = load(full)!;
    expect(b.prices).toEqual({ startup: "price_s1", scale: "price_sc1" });
    expect(purchasablePlans(b)).toEqual(["startup", "scale"]);
  });

  it("refuse half a configuration, naming each missing setting", () => {
    let caught: unknown;
    try {
      load({ COUNTERSIGN_STRIPE_SECRET_KEY: "sk_test_abc" });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems.map((p) => p.setting)).toEqual([
      "COUNTERSIGN_STRIPE_WEBHOOK_SECRET",
      "COUNTERSIGN_STRIPE_PRICES",
    ]);
  });

  it("refuse the free plan, an unknown plan, a malformed price or key, without repeating the value", () => {
    for (const bad of [
      { COUNTERSIGN_STRIPE_PRICES: "developer=price_x" },
      { COUNTERSIGN_STRIPE_PRICES: "platinum=price_x" },
      { COUNTERSIGN_STRIPE_PRICES: "startup=prod_x" },
      { COUNTERSIGN_STRIPE_SECRET_KEY: "pk_test_publishable" },
      { COUNTERSIGN_STRIPE_WEBHOOK_SECRET: "not-a-secret" },
    ]) {
      const env = { ...full, ...bad };
      let caught: unknown;
      try {
        load(env);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const message = (caught as ConfigError).message;
      expect(message).toContain(Object.keys(bad)[0]);
      expect(message).not.toContain(Object.values(bad)[0]);
    }
  });
});
