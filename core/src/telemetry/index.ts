/** OpenTelemetry traces: off unless an OTLP endpoint is configured (docs/operations.md). */
export { tracer, inSpan, inSpanSync } from "./tracing.js";
export { startTelemetry } from "./start.js";
