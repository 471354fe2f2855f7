import {
  Alert,
  Anchor,
  Box,
  Button,
  Code,
  CopyButton,
  Group,
  NativeSelect,
  Stack,
  Tabs,
  Text,
  Title,
} from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { mcpServersApi } from "../../../api/mcp-servers.js";
import { toolsApi } from "../../../api/tools.js";
import { orgPath } from "../../../session/organization.js";
import { gatewayAddress } from "./gateway-address.js";
import { connectSnippets, exampleArguments } from "./snippets.js";

/**
 * How an agent reaches the Gateway: its address and ready-to-copy snippets (curl for /v1/authorize,
 * the MCP endpoint with the TypeScript and Python SDKs, the mcp.json entry of desktop MCP clients).
 * `gatewayKey` is the secret of a key created just now, filled into the snippets this once; without
 * it a placeholder stands where the agent's key goes.
 */
export function ConnectAgent({ orgId, gatewayKey }: { orgId: string; gatewayKey: string | null }) {
  const gatewayUrl = gatewayAddress();
  const tools = useDecisionOnlyTools(orgId);
  const [chosen, setChosen] = useState<string | null>(null);
  const tool = tools.find((t) => t.exposed_name === chosen) ?? tools[0] ?? null;
  const snippets = connectSnippets({
    gatewayUrl,
    key: gatewayKey,
    tool: tool?.exposed_name ?? null,
    arguments: tool ? exampleArguments(tool) : {},
  });
  return (
    <Stack gap="sm" data-testid="connect-agent">
      <Title order={3} size="h4">
        Connect the agent
      </Title>
      {gatewayUrl ? (
        <Group gap="xs">
          <Text size="sm">The Gateway&apos;s address:</Text>
          <Code data-testid="gateway-url">{gatewayUrl}</Code>
          <CopyButton value={gatewayUrl}>
            {({ copied, copy }) => (
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={copy}
                aria-label="Copy the Gateway's address"
              >
                {copied ? "Copied" : "Copy"}
              </Button>
            )}
          </CopyButton>
        </Group>
      ) : (
        <Alert
          color="yellow"
          variant="light"
          data-testid="gateway-url-unknown"
          title="The Gateway's address is not set here"
        >
          This installation did not tell the dashboard where its Gateway is, so the snippets show{" "}
          <Code>&lt;GATEWAY_URL&gt;</Code>. Ask whoever runs Countersign for the Gateway&apos;s public address
          (they set it as <Code>COUNTERSIGN_GATEWAY_URL</Code> of the Cloud API, or{" "}
          <Code>api.gatewayUrl</Code> in the Helm chart).
        </Alert>
      )}
      <Text size="sm" c={gatewayKey ? undefined : "dimmed"} data-testid="connect-key-note">
        {gatewayKey
          ? "The new key is filled in below, this once: copy what you need now."
          : "Keys are shown only when they are created: put the agent's key where the snippets say <GATEWAY_KEY>."}
      </Text>
      {tools.length > 1 && (
        <NativeSelect
          label="Call in the curl example"
          value={tool?.exposed_name ?? ""}
          onChange={(e) => setChosen(e.currentTarget.value)}
          data={tools.map((t) => t.exposed_name)}
          maw={360}
        />
      )}
      <Tabs defaultValue="curl" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="curl">curl</Tabs.Tab>
          <Tabs.Tab value="typescript">TypeScript</Tabs.Tab>
          <Tabs.Tab value="python">Python</Tabs.Tab>
          <Tabs.Tab value="mcp-json">mcp.json</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="curl" pt="sm">
          <Text size="sm" c="dimmed" mb="xs">
            Asks the Gateway before the agent acts (<Code>POST /v1/authorize</Code>, decision-only tools); the
            answer says <Code>allowed</Code> and why.
            {!tool && (
              <>
                {" "}
                No decision-only tool is enabled yet:{" "}
                <Anchor component={Link} to={orgPath(orgId, "/tools")}>
                  make one on the Tools page
                </Anchor>{" "}
                and it is filled in here.
              </>
            )}
          </Text>
          <Snippet code={snippets.curl} name="curl command" testId="snippet-curl" />
        </Tabs.Panel>
        <Tabs.Panel value="typescript" pt="sm">
          <Text size="sm" c="dimmed" mb="xs">
            The Gateway&apos;s MCP endpoint with the official SDK (<Code>@modelcontextprotocol/sdk</Code>,
            Streamable HTTP): lists the agent&apos;s tools; <Code>client.callTool</Code> runs one after the
            Gateway&apos;s decision.
          </Text>
          <Snippet code={snippets.typescript} name="TypeScript example" testId="snippet-typescript" />
        </Tabs.Panel>
        <Tabs.Panel value="python" pt="sm">
          <Text size="sm" c="dimmed" mb="xs">
            The same with the official Python SDK (<Code>pip install &quot;mcp&gt;=2.3&quot;</Code>).
          </Text>
          <Snippet code={snippets.python} name="Python example" testId="snippet-python" />
        </Tabs.Panel>
        <Tabs.Panel value="mcp-json" pt="sm">
          <Text size="sm" c="dimmed" mb="xs">
            For desktop MCP clients that read an <Code>mcp.json</Code> (Claude Code&apos;s{" "}
            <Code>.mcp.json</Code>, Cursor&apos;s <Code>mcp.json</Code>): a Streamable HTTP server with the
            key in its <Code>Authorization</Code> header.
          </Text>
          <Snippet code={snippets.mcpJson} name="mcp.json configuration" testId="snippet-mcp-json" />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

/** A block of code a keyboard can reach and scroll, with its copy button. */
function Snippet({ code, name, testId }: { code: string; name: string; testId: string }) {
  return (
    <Box pos="relative">
      <Code block role="region" aria-label={name} tabIndex={0} data-testid={testId} pr={72}>
        {code}
      </Code>
      <CopyButton value={code}>
        {({ copied, copy }) => (
          <Button
            size="compact-xs"
            variant="default"
            onClick={copy}
            pos="absolute"
            top={8}
            right={8}
            aria-label={`Copy the ${name}`}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Box>
  );
}

/** The organization's enabled tools on decision-only integrations: what /v1/authorize decides on. */
function useDecisionOnlyTools(orgId: string) {
  const servers = useQuery({
    queryKey: ["connect", "mcp-servers", orgId],
    queryFn: () => mcpServersApi.list(orgId),
  });
  const tools = useQuery({ queryKey: ["connect", "tools", orgId], queryFn: () => toolsApi.list(orgId) });
  const decisionOnly = new Set(
    (servers.data?.items ?? []).filter((s) => s.kind === "decision_only").map((s) => s.id),
  );
  return (tools.data?.items ?? []).filter((t) => t.enabled && decisionOnly.has(t.mcp_server_id));
}
