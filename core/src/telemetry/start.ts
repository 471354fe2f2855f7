import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { NodeSDK } from "@opentelemetry/sdk-node";

/**
 * Starts exporting traces over OTLP/HTTP when an endpoint is configured
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`); otherwise nothing is started and spans
 * stay no-ops. Returns the shutdown that flushes what is buffered.
 */
export function startTelemetry(serviceName: string, endpoint: string | undefined): () => Promise<void> {
  if (!endpoint) return async () => undefined;
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, "")}/v1/traces` }),
  });
  sdk.start();
  return () => sdk.shutdown();
}
