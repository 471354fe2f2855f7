import { request } from "node:https";
import { rootCertificates, type PeerCertificate } from "node:tls";
import {
  AddressNotAllowedError,
  checkIpIdentity,
  connectTarget,
  type AddressRules,
} from "@countersign/core/net";
import { MAX_RESPONSE_BYTES } from "@countersign/core/webhooks";

export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** What one attempt came to: success only on a 2xx answer within the time (SPEC 6.4). */
export interface AttemptResult {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Why the attempt failed, when it did for a reason other than a non-2xx status. */
  error: string | null;
}

export interface SendSettings extends AddressRules {
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), added to the usual roots. */
  ca?: string[];
}

/**
 * One POST to a receiver. The host is resolved and judged now and the socket
 * opens to that checked address (never the name again), redirects are not
 * followed, a declared body over 64 KiB fails the attempt and an undeclared
 * one is read only to 64 KiB, and the whole exchange ends after timeoutMs.
 */
export async function sendAttempt(req: AttemptRequest, settings: SendSettings): Promise<AttemptResult> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  let target;
  try {
    // Name resolution counts against the time too: a hanging resolver must not outlast the lease.
    const timedOut = new Promise<never>((_, reject) =>
      deadline.addEventListener("abort", () => reject(new Error("timeout")), { once: true }),
    );
    timedOut.catch(() => undefined);
    target = await Promise.race([connectTarget(req.url, settings), timedOut]);
  } catch (err) {
    if (err instanceof AddressNotAllowedError)
      return { ok: false, status: null, error: `URL_NOT_ALLOWED: ${err.reason}` };
    if (deadline.aborted) return { ok: false, status: null, error: "TIMEOUT" };
    throw err;
  }

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener("abort", onTimeout);
      resolve(r);
    };
    const body = Buffer.from(req.body, "utf8");
    const outgoing = request(
      {
        host: target.address,
        family: target.family,
        port: target.port,
        servername: target.servername,
        // An IP literal is checked against the certificate's IP names by our own comparison:
        // Node 22's default check refuses every certificate for an IPv6 literal.
        ...(target.servername === undefined
          ? {
              checkServerIdentity: (_host: string, cert: PeerCertificate) =>
                checkIpIdentity(target.address, cert),
            }
          : {}),
        path: `${target.url.pathname}${target.url.search}`,
        method: "POST",
        headers: { ...req.headers, host: target.url.host, "content-length": String(body.length) },
        ca: settings.ca?.length ? [...rootCertificates, ...settings.ca] : undefined,
        // One connection per attempt: a pooled socket could outlive the address check.
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const declared = Number(res.headers["content-length"]);
        if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
          res.destroy();
          outgoing.destroy();
          return finish({ ok: false, status, error: "RESPONSE_TOO_LARGE" });
        }
        const outcome = (): AttemptResult =>
          status >= 200 && status < 300
            ? { ok: true, status, error: null }
            : { ok: false, status, error: status >= 300 && status < 400 ? "REDIRECT_NOT_FOLLOWED" : null };
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          // Only the first 64 KiB of an undeclared body are read; the rest is never waited for.
          if (read >= MAX_RESPONSE_BYTES) {
            res.destroy();
            outgoing.destroy();
            finish(outcome());
          }
        });
        res.on("end", () => finish(outcome()));
        res.on("error", () => finish({ ok: false, status, error: "CONNECTION_ERROR" }));
      },
    );
    const onTimeout = () => {
      outgoing.destroy();
      finish({ ok: false, status: null, error: "TIMEOUT" });
    };
    deadline.addEventListener("abort", onTimeout, { once: true });
    outgoing.on("error", (err: NodeJS.ErrnoException) => {
      const tls = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(`${err.code ?? ""} ${err.message}`);
      finish({
        ok: false,
        status: null,
        error: tls ? `TLS_ERROR: ${err.code ?? "handshake"}` : `CONNECTION_ERROR: ${err.code ?? "failed"}`,
      });
    });
    outgoing.end(body);
  });
}
