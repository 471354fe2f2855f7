import { SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";

/**
 * The service's tracer (DESIGN "Observability"). Until a tracer provider is
 * registered (startTelemetry, or a test's in-memory one) every span is a
 * no-op that costs next to nothing, so the hot path carries spans always.
 */
export const tracer = trace.getTracer("countersign");

/**
 * Runs `fn` in a child span of the active one; an exception marks the span as
 * failed and is rethrown. Attributes never carry argument values or secrets.
 */
export function inSpan<T>(name: string, fn: (span: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The same for synchronous stages (evaluation, signatures). */
export function inSpanSync<T>(name: string, fn: (span: Span) => T, attributes?: Attributes): T {
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
