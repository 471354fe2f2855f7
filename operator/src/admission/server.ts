// The admission webhook's HTTPS server, run by every operator replica (leader or not), so a
// standby answers too. Its certificate and key are files (a Secret mounted by the chart: made by
// cert-manager, or given); they are read again when they change, so a renewed certificate is
// served without a restart.
import { readFileSync, statSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Logger } from "../log.js";
import { review, type AdmissionReview } from "./review.js";

export interface AdmissionServer {
  port: number;
  close(): Promise<void>;
}

/** An AdmissionReview is small; anything larger is not one. */
const MAX_BODY = 3 << 20;
const certCheckMs = 30_000;

export async function startAdmissionServer(o: {
  port: number;
  host?: string;
  /** Directory with tls.crt and tls.key (a kubernetes.io/tls Secret mounted). */
  certDir: string;
  log: Logger;
  /** How often the files are checked for a renewed certificate (default 30 s). */
  certCheckMs?: number;
}): Promise<AdmissionServer> {
  const certFile = path.join(o.certDir, "tls.crt");
  const keyFile = path.join(o.certDir, "tls.key");
  const stamp = () => `${statSync(certFile).mtimeMs}:${statSync(keyFile).mtimeMs}`;
  const credentials = () => ({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
  let loaded = stamp();
  const server = https.createServer({ ...credentials(), minVersion: "TLSv1.2" }, (req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/validate") {
      answer(404, { message: "not found" });
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        answer(413, { message: "too large" });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (res.headersSent) return;
      let input: AdmissionReview;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdmissionReview;
      } catch {
        answer(400, { message: "not an AdmissionReview" });
        return;
      }
      const output = review(input);
      if (!output.response!.allowed)
        o.log.info({ uid: output.response!.uid, reason: "PolicyInvalid" }, "admission refused a Policy");
      answer(200, output);
    });
  });
  const watcher = setInterval(() => {
    try {
      const now = stamp();
      if (now === loaded) return;
      server.setSecureContext(credentials());
      loaded = now;
      o.log.info({}, "admission webhook certificate reloaded");
    } catch (error) {
      o.log.warn({ error: String(error) }, "admission webhook certificate not reloaded");
    }
  }, o.certCheckMs ?? certCheckMs);
  watcher.unref();
  await new Promise<void>((resolve) => server.listen(o.port, o.host ?? "0.0.0.0", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        clearInterval(watcher);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
