import { afterAll, describe, expect, it } from "vitest";
import { createTestCa } from "../../../test/fixtures/https-receiver.js";
import { upstreamAgent } from "./trust.js";

const ca = createTestCa();
afterAll(() => ca.dispose());

describe("upstreamAgent", () => {
  it("leaves connections to Node's global agent (the public roots) without extra certificates", () => {
    expect(upstreamAgent(undefined)).toBeUndefined();
    expect(upstreamAgent([])).toBeUndefined();
  });

  it("builds the trust once per configured list, and never shares an agent between two lists", () => {
    const configured = [ca.caPem];
    const agent = upstreamAgent(configured);
    expect(agent).toBeDefined();
    expect(upstreamAgent(configured)).toBe(agent);
    expect(agent!.options).toMatchObject({ keepAlive: true });
    expect(agent!.options.secureContext).toBeDefined();
    // Another list with the same certificate (another configuration) gets its own connections.
    expect(upstreamAgent([ca.caPem])).not.toBe(agent);
  });
});
