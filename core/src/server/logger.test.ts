import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { censorLine, createLogger, sensitiveNames } from "./logger.js";

function capture(): { lines: () => Array<Record<string, unknown>>; sink: Writable } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString("utf8"));
      done();
    },
  });
  return {
    sink,
    lines: () =>
      out
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("log lines never carry sensitive values", () => {
  it("censors every sensitive name at the top level and one level down, in a logger's lines and its children's", () => {
    const { sink, lines } = capture();
    const logger = createLogger("api", "info", sink);
    const top = Object.fromEntries([...sensitiveNames].map((n) => [n, `top-${n}-value`]));
    const nested = Object.fromEntries([...sensitiveNames].map((n) => [n, `nested-${n}-value`]));
    logger.info({ ...top, body: { ...nested, kept: "visible-1" }, count: 3 }, "line");
    logger.child({ request_id: "r-1" }).info({ headers: nested, token: "child-token-value" }, "child line");
    const [first, second] = lines();
    for (const n of sensitiveNames) {
      expect(first![n]).toBe("[redacted]");
      expect((first!.body as Record<string, unknown>)[n]).toBe("[redacted]");
      expect((second!.headers as Record<string, unknown>)[n]).toBe("[redacted]");
    }
    expect((first!.body as Record<string, unknown>).kept).toBe("visible-1");
    expect(first!.count).toBe(3);
    expect(second!.token).toBe("[redacted]");
    expect(second!.request_id).toBe("r-1");
    const text = JSON.stringify(lines());
    expect(text).not.toMatch(/top-|nested-|child-token-value/);
  });

  it("leaves the caller's objects as they were", () => {
    const inner = { password: "p4ss", note: "n" };
    const line = { body: inner, secret: "s3cret", other: { fine: true } };
    const censored = censorLine(line);
    expect(censored).toEqual({
      body: { password: "[redacted]", note: "n" },
      secret: "[redacted]",
      other: { fine: true },
    });
    expect(line).toEqual({ body: { password: "p4ss", note: "n" }, secret: "s3cret", other: { fine: true } });
    expect(line.body).toBe(inner);
    // A line with nothing sensitive is passed through as it is.
    const plain = { a: 1, b: { c: 2 } };
    expect(censorLine(plain)).toBe(plain);
  });

  it("logs a request as its method and path, without the query string", () => {
    const { sink, lines } = capture();
    createLogger("gateway", "info", sink).info(
      {
        req: { method: "GET", url: "/verify?token=link-token-value", headers: { authorization: "Bearer k" } },
      },
      "request",
    );
    const [line] = lines();
    expect(line!.req).toEqual({ method: "GET", path: "/verify" });
    expect(JSON.stringify(line)).not.toMatch(/link-token-value|Bearer/);
  });
});
