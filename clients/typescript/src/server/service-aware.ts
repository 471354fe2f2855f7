import { canonicalJson } from "@countersign/protocol/canonical";
import {
  identityGenesis,
  signerFromSeed,
  signIdentity,
  type IdentityDocument,
  type Kid,
  type Signer,
} from "@countersign/protocol/evidence";
import {
  attachAttestation,
  attestResult,
  checkUpstreamEvidence,
  declarationOf,
  evidenceMetaKey,
  refusalMetaKey,
  type Refusal,
} from "@countersign/protocol/upstream";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface ServiceAwareOptions {
  /** The server identity's 32-byte Ed25519 seed; keep it secret, like any private key. */
  seed: Uint8Array;
  /** KIDs of the Countersign Gateways this server takes calls from (the Gateway identity, GET /gateway-identity). */
  gateways: readonly Kid[];
  /** How old the evidence may be when it arrives; default 60 s. */
  maxAgeMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

/** The parts of an SDK tool handler's `extra` this helper reads. */
interface HandlerExtra {
  _meta?: Record<string, unknown>;
}

/** The SDK's McpServer (which holds a low-level `server`) or its low-level Server. */
type SdkServer =
  | { registerCapabilities(capabilities: { experimental?: Record<string, object> }): void }
  | { server: { registerCapabilities(capabilities: { experimental?: Record<string, object> }): void } };

type ToolHandler<A> = (args: A, extra: never) => CallToolResult | Promise<CallToolResult>;

function refusal(r: Refusal): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `Countersign evidence refused: ${r.detail}` }],
    _meta: { [refusalMetaKey]: r },
  };
}

/**
 * Makes an MCP server built with the official SDK service-aware: each
 * wrapped tool handler runs only when the call carries the Countersign
 * evidence for exactly these arguments (an authentic TASK → EXECUTION
 * signed by a trusted Gateway, naming this server and tool, with the
 * approval a person signed when the policy required one, fresh, never seen
 * before), refuses otherwise without running, and attests what it returns.
 *
 *   const countersign = serviceAware({ seed, gateways: [gatewayKid] });
 *   countersign.declare(server);
 *   server.registerTool("refund", { inputSchema }, countersign.tool("refund", async (args) => ...));
 *
 * The arguments are checked as the handler receives them: give the tool an
 * input schema that neither adds defaults nor strips members, or the digest
 * of what arrives will not be the one the Gateway signed (and the call is refused).
 */
export function serviceAware(options: ServiceAwareOptions) {
  const signer: Signer = signerFromSeed(options.seed);
  const now = options.now ?? (() => new Date());
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  // EXECUTIONs already acted on, kept as long as they could still be fresh: each runs once here.
  const seen = new Map<string, number>();
  const forget = (t: number) => {
    for (const [id, at] of seen) if (t - at > 2 * maxAgeMs) seen.delete(id);
  };

  return {
    kid: signer.kid,

    /** The seq-0 identity document to register on the MCP server in Countersign (`server_identity`). */
    identity(subject: { organizationId: string; serverId: string; name?: string | null }): IdentityDocument {
      const body = identityGenesis({
        publicKey: signer.publicKey,
        actor_type: "mcp_server",
        subject: {
          organization_id: subject.organizationId,
          id: subject.serverId,
          name: subject.name ?? null,
        },
        issued_at: now().toISOString(),
      });
      return signIdentity(body, signer);
    },

    /**
     * Declares in the server's initialize result that it is service-aware and
     * signs with this identity (`capabilities.experimental["service/evidence"]`),
     * which the Cloud API checks against the registered identity. Before connecting.
     */
    declare(server: SdkServer): void {
      const low = "server" in server ? server.server : server;
      low.registerCapabilities({ experimental: declarationOf(signer.kid) });
    },

    /** Wraps one tool's handler (registered under `name`). */
    tool<A extends Record<string, unknown>>(
      name: string,
      handler: (args: A, extra: HandlerExtra) => CallToolResult | Promise<CallToolResult>,
    ): ToolHandler<A> {
      return (async (args: A, extra: HandlerExtra) => {
        const at = now();
        const checked = checkUpstreamEvidence(extra?._meta?.[evidenceMetaKey], {
          gateways: options.gateways,
          serverKid: signer.kid,
          tool: name,
          arguments: JSON.parse(canonicalJson(args ?? {})) as Record<string, unknown>,
          now: at,
          maxAgeMs,
        });
        if (!checked.ok) return refusal({ reason: checked.reason, detail: checked.detail });
        forget(at.getTime());
        if (seen.has(checked.execution.id))
          return refusal({ reason: "REPLAYED", detail: "this EXECUTION was already run here" });
        seen.set(checked.execution.id, at.getTime());
        const result = await handler(args, extra);
        return attachAttestation(
          result,
          attestResult(signer, checked.execution.id, result, now()),
        ) as CallToolResult;
      }) as unknown as ToolHandler<A>;
    },
  };
}
