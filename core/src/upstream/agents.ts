import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { createSecureContext, rootCertificates } from "node:tls";

/**
 * How long a kept-alive connection to an MCP server may stay idle before the Gateway closes
 * it. Servers close idle connections too, and a request written on a connection the server is
 * closing fails (ECONNRESET) without the server having read it: the call then ends as
 * UPSTREAM_UNREACHABLE, and the Gateway cannot send it again (it cannot know the server did not
 * run it). Node's own agents wait 5 s, as long as the most common servers: uvicorn (Python MCP
 * servers) closes after 5 s without announcing it, a Node server after 5 s. Closing first, with a
 * second to spare, leaves that race to servers that close sooner still.
 */
export const UPSTREAM_IDLE_MS = 4_000;

const keepAlive = { keepAlive: true, timeout: UPSTREAM_IDLE_MS, scheduling: "lifo" } as const;

/** Plain http: only to a loopback address, when COUNTERSIGN_ALLOW_LOOPBACK_URLS allows it (fetch.ts). */
const plainAgent = new HttpAgent(keepAlive);
/** https to the public roots: the configuration gives no extra CA certificates. */
const publicAgent = new HttpsAgent(keepAlive);

// One agent per configured list of extra CA certificates (the array the configuration
// holds), so a connection made under one trust is never reused under another.
const agents = new WeakMap<readonly string[], HttpsAgent>();

/**
 * The agent of connections to MCP servers: plain http, or https whose certificates chain to the
 * public roots or to `extraCa` (COUNTERSIGN_UPSTREAM_CA_FILE; tests' throwaway CAs). The trust is
 * built once: a `ca` list passed with each request made Node parse the ~140 public roots again for
 * every new connection, and put them all in the pool's key.
 */
export function upstreamAgent(
  plain: boolean,
  extraCa: readonly string[] | undefined,
): HttpAgent | HttpsAgent {
  if (plain) return plainAgent;
  if (!extraCa?.length) return publicAgent;
  let agent = agents.get(extraCa);
  if (!agent) {
    agent = new HttpsAgent({
      ...keepAlive,
      secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }),
    });
    agents.set(extraCa, agent);
  }
  return agent;
}
