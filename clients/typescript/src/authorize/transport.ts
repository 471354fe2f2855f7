/**
 * One JSON POST with node:http(s), because the client must know exactly how
 * far a request got: a failure before the body was handed to the network
 * cannot have been decided (`outcomeUnknown` false); one after it may have
 * been (true). Redirects are never followed (they would carry the key
 * elsewhere); the caller sees them as answers.
 */
import http from "node:http";
import https from "node:https";
import { ServiceProtocolError, ServiceUnavailableError } from "./errors.js";

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Larger answers are not the Gateway's (its largest is far smaller). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export function postJson(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    let bodyWritten = false;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };
    const lib = url.protocol === "https:" ? https : http;
    const payload = Buffer.from(body, "utf8");
    const req = lib.request(url, {
      method: "POST",
      agent: false,
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json",
        "content-length": String(payload.length),
      },
    });
    const timer = setTimeout(
      () =>
        fail(
          new ServiceUnavailableError("TIMEOUT", `no answer from the Gateway within ${timeoutMs} ms`, {
            outcomeUnknown: bodyWritten,
          }),
        ),
      timeoutMs,
    );
    req.on("finish", () => {
      bodyWritten = true;
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      fail(
        new ServiceUnavailableError(
          "NETWORK_ERROR",
          bodyWritten
            ? "the connection to the Gateway failed after the request was sent; the outcome is unknown"
            : `could not reach the Gateway (${errorCode(err)}); nothing was decided`,
          { outcomeUnknown: bodyWritten, cause: err },
        ),
      );
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          clearTimeout(timer);
          fail(new ServiceProtocolError("the answer is larger than any Gateway answer"));
        } else chunks.push(chunk);
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        fail(
          new ServiceUnavailableError(
            "NETWORK_ERROR",
            "the connection broke while the Gateway answered; the outcome is unknown",
            { outcomeUnknown: true, cause: err },
          ),
        );
      });
      res.on("aborted", () => {
        clearTimeout(timer);
        fail(
          new ServiceUnavailableError(
            "NETWORK_ERROR",
            "the connection broke while the Gateway answered; the outcome is unknown",
            { outcomeUnknown: true },
          ),
        );
      });
      res.on("end", () => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        });
      });
    });
    req.end(payload);
  });
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : "connection failed";
}
