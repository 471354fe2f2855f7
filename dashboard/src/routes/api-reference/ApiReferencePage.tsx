import { Anchor, Box, Stack, useComputedColorScheme } from "@mantine/core";
import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import { PageHeader } from "../../components/PageHeader.js";

/** Where the Cloud API publishes its OpenAPI document (generated from the wire schemas). */
export const OPENAPI_URL = "/api/v1/openapi.json";

/**
 * The Cloud API's reference: Scalar's viewer reading the document the API serves, so what people
 * browse is what the running API accepts and answers. Nothing is fetched from elsewhere (no web
 * fonts, no telemetry, no proxy, no AI agent): the page stays within the dashboard's content security policy,
 * and "Test request" is hidden because a call from here would carry this tab's session. The viewer
 * takes the dashboard's light or dark scheme (the operating system's), not a toggle of its own.
 */
/**
 * Scalar's own greys and its POST green are a little light for text (axe-core's 4.5:1): the same
 * hues, darker in the light scheme and lighter in the dark one. More specific than Scalar's theme.
 */
const contrastCss = `
html body .light-mode, html body.light-mode { --scalar-color-2: #44484e; --scalar-color-3: #55595f; --scalar-color-green: #05744a; }
html body .dark-mode, html body.dark-mode { --scalar-color-2: #d2d5da; --scalar-color-3: #b9bcc1; }
`;

export function ApiReferencePage() {
  const scheme = useComputedColorScheme("light");
  return (
    <Stack gap="md">
      {/* The viewer below holds the page's main landmark (the shell gives up its own here). */}
      <Box component="section" aria-label="About the API reference">
        <PageHeader
          title="API reference"
          description={
            <>
              The Cloud API as this installation serves it. The same document is at{" "}
              <Anchor href={OPENAPI_URL}>{OPENAPI_URL}</Anchor> for generating a client or testing with your
              own tools.
            </>
          }
        />
      </Box>
      <Box data-testid="api-reference">
        <ApiReferenceReact
          key={scheme}
          configuration={{
            url: OPENAPI_URL,
            withDefaultFonts: false,
            telemetry: false,
            hideClientButton: true,
            hideTestRequestButton: true,
            hideDarkModeToggle: true,
            forceDarkModeState: scheme,
            darkMode: scheme === "dark",
            showDeveloperTools: "never",
            documentDownloadType: "json",
            agent: { disabled: true },
            customCss: contrastCss,
          }}
        />
      </Box>
    </Stack>
  );
}
