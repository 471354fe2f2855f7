import { Agent } from "node:https";
import { createSecureContext, rootCertificates } from "node:tls";

// One agent per configured list of extra CA certificates (the array the configuration
// holds), so a connection made under one trust is never reused under another.
const agents = new WeakMap<readonly string[], Agent>();

/**
 * The agent of https connections to MCP servers whose certificates may also chain to
 * `extraCa` (COUNTERSIGN_UPSTREAM_CA_FILE; tests' throwaway CAs), besides the public
 * roots; undefined without extra certificates (Node's global agent, the public roots).
 * The trust is built once: a `ca` list passed with each request made Node parse the
 * ~140 public roots again for every new connection, and put them all in the pool's key.
 */
export function upstreamAgent(extraCa: readonly string[] | undefined): Agent | undefined {
  if (!extraCa?.length) return undefined;
  let agent = agents.get(extraCa);
  if (!agent) {
    // The global agent's keep-alive settings (Node 20+).
    agent = new Agent({
      keepAlive: true,
      timeout: 5_000,
      scheduling: "lifo",
      secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }),
    });
    agents.set(extraCa, agent);
  }
  return agent;
}
