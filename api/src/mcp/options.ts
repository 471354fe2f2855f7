import type { Resolve } from "@countersign/core/net";

/** What the MCP server, tool and discovery routes need (docs/configuration-api.md). */
export interface McpOptions {
  /** COUNTERSIGN_CREDENTIAL_KEY: encrypts authorization header credentials; without it none can be stored. */
  credentialKey?: Buffer;
  /** COUNTERSIGN_ALLOW_LOOPBACK_URLS: loopback MCP servers for local runs and tests. */
  allowLoopbackUrls: boolean;
  /** Extra CA certificates an MCP server's certificate may chain to, besides the usual roots (tests). */
  ca?: string[];
  /** Name resolution; tests inject one. */
  resolve?: Resolve;
  /** The whole discovery exchange (SPEC 8.4: 30 s for an upstream MCP call); tests shorten it. */
  discoveryTimeoutMs?: number;
}

declare module "../context.js" {
  interface CloudApiOptions {
    /** MCP servers, tools and discovery. */
    mcp?: McpOptions;
  }
}

export const mcpOptionsOf = (ctx: { mcp?: McpOptions }): McpOptions =>
  ctx.mcp ?? { allowLoopbackUrls: false };
