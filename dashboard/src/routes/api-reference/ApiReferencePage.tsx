import { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";

/** Where the Cloud API publishes its OpenAPI document (generated from the wire schemas). */
export const OPENAPI_URL = "/api/v1/openapi.json";

/**
 * The Cloud API's reference: Scalar's viewer reading the document the API serves, so what people
 * browse is what the running API accepts and answers. Nothing is fetched from elsewhere (no web
 * fonts, no telemetry, no proxy, no AI agent): the page stays within the dashboard's content security policy,
 * and "Test request" is hidden because a call from here would carry this tab's session.
 */
export function ApiReferencePage() {
  return (
    <main className="api-reference">
      <h1>API reference</h1>
      <p className="muted">
        The Cloud API as this installation serves it. The same document is at{" "}
        <a href={OPENAPI_URL}>{OPENAPI_URL}</a> for generating a client or testing with your own tools.
      </p>
      <ApiReferenceReact
        configuration={{
          url: OPENAPI_URL,
          withDefaultFonts: false,
          telemetry: false,
          hideClientButton: true,
          hideTestRequestButton: true,
          hideDarkModeToggle: true,
          showDeveloperTools: "never",
          documentDownloadType: "json",
          agent: { disabled: true },
        }}
      />
    </main>
  );
}
