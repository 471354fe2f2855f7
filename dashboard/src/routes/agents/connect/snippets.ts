/**
 * The ready-to-copy snippets that connect an agent to the Gateway (docs/dashboard.md "Connect an
 * agent"): curl for POST {gateway_url}/v1/authorize (SPEC 4.1), the MCP endpoint {gateway_url}/mcp
 * with the official TypeScript and Python SDKs (SPEC 4.2), and the `mcp.json` entry desktop MCP
 * clients read. Pure text from what the page knows; the key is filled in only where the page still
 * holds it (right after it was created), else a placeholder stands in for it.
 */
import type { AuthorizeRequestBody, Tool } from "@countersign/protocol/wire";

export const GATEWAY_URL_PLACEHOLDER = "<GATEWAY_URL>";
export const KEY_PLACEHOLDER = "<GATEWAY_KEY>";
export const TOOL_PLACEHOLDER = "<decision-only tool>";

export interface SnippetInput {
  /** The Gateway's public base URL, null when the installation did not say. */
  gatewayUrl: string | null;
  /** The gateway key's secret, only right after it was created. */
  key: string | null;
  /** The exposed name of a decision-only tool for the curl example, null when there is none. */
  tool: string | null;
  arguments: Record<string, unknown>;
}

export interface Snippets {
  curl: string;
  typescript: string;
  python: string;
  mcpJson: string;
}

/** A word for sh, in single quotes (a quote inside closes, escapes and reopens them). */
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A string literal both TypeScript and Python read as this text. */
const literal = (s: string) => JSON.stringify(s);

export function connectSnippets(input: SnippetInput): Snippets {
  const base = input.gatewayUrl ?? GATEWAY_URL_PLACEHOLDER;
  const key = input.key ?? KEY_PLACEHOLDER;
  const mcpUrl = `${base}/mcp`;
  const body: AuthorizeRequestBody = { tool: input.tool ?? TOOL_PLACEHOLDER, arguments: input.arguments };
  const curl = [
    `curl -sS -X POST ${sh(`${base}/v1/authorize`)} \\`,
    `  -H ${sh(`Authorization: Bearer ${key}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${sh(JSON.stringify(body))}`,
  ].join("\n");
  const typescript = [
    `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`,
    `import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";`,
    ``,
    `const transport = new StreamableHTTPClientTransport(new URL(${literal(mcpUrl)}), {`,
    `  requestInit: { headers: { Authorization: ${literal(`Bearer ${key}`)} } },`,
    `});`,
    `const client = new Client({ name: "my-agent", version: "1.0.0" });`,
    `await client.connect(transport);`,
    `const { tools } = await client.listTools();`,
    `console.log(tools.map((t) => t.name));`,
    `await client.close();`,
  ].join("\n");
  const python = [
    `import asyncio`,
    ``,
    `import httpx2`,
    `from mcp import Client`,
    `from mcp.client.streamable_http import streamable_http_client`,
    ``,
    ``,
    `async def main() -> None:`,
    `    headers = {"Authorization": ${literal(`Bearer ${key}`)}}`,
    `    async with httpx2.AsyncClient(headers=headers) as http:`,
    `        async with Client(streamable_http_client(${literal(mcpUrl)}, http_client=http)) as client:`,
    `            tools = await client.list_tools()`,
    `            print([tool.name for tool in tools.tools])`,
    ``,
    ``,
    `asyncio.run(main())`,
  ].join("\n");
  const mcpJson = JSON.stringify(
    {
      mcpServers: {
        countersign: { type: "http", url: mcpUrl, headers: { Authorization: `Bearer ${key}` } },
      },
    },
    null,
    2,
  );
  return { curl, typescript, python, mcpJson };
}

/**
 * Arguments a tool takes, for the curl example: its input schema's required members with a value of
 * their type (a declared example or default first), and its amount mapping's amount (a whole number,
 * SPEC 8.3) and currency, so the example reaches the policy's amount rules.
 */
export function exampleArguments(
  tool: Pick<Tool, "input_schema" | "amount_mapping">,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const schema = isObject(tool.input_schema) ? tool.input_schema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
  for (const name of required) args[name] = exampleOf(properties[name]);
  const mapping = tool.amount_mapping;
  if (mapping) {
    setPath(args, mapping.amount_path, 10);
    if (mapping.currency_path) setPath(args, mapping.currency_path, "EUR");
  }
  return args;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function exampleOf(property: unknown): unknown {
  if (!isObject(property)) return "example";
  if (Array.isArray(property.examples) && property.examples.length > 0) return property.examples[0];
  if (property.default !== undefined) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  switch (property.type) {
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "example";
  }
}

/** Sets a value at a mapping's path: member names joined by dots, optionally starting with `$.`. */
function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const names = path.replace(/^\$\./, "").split(".");
  let here = target;
  for (const name of names.slice(0, -1)) {
    const next = here[name];
    here = isObject(next) ? next : (here[name] = {});
  }
  here[names[names.length - 1]!] = value;
}
