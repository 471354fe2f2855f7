/** OpenTelemetry traces: off unless an OTLP endpoint is configured (docs/operations.md). */
export { tracer, inSpan, inSpanSync } from "./tracing.js";
export type { Span } from "@opentelemetry/api";
export { startTelemetry } from "./start.js";
