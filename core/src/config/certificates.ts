import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * A file of PEM CA certificates (a private CA's bundle, as cert-manager or
 * trust-manager write it), read and checked when the server starts: a path
 * that cannot be read, or a file without a certificate that parses, is a
 * configuration problem named at start, not a TLS failure on the first call.
 * The value is the certificates' PEM texts.
 */
export const caCertificates = z
  .string()
  .min(1)
  .transform((file, ctx) => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      ctx.addIssue({ code: "custom", message: "cannot be read" });
      return z.NEVER;
    }
    const pems = text.match(PEM_CERTIFICATE) ?? [];
    const parses = (pem: string) => {
      try {
        return new X509Certificate(pem).ca;
      } catch {
        return false;
      }
    };
    if (pems.length === 0 || !pems.every(parses)) {
      ctx.addIssue({ code: "custom", message: "holds no PEM CA certificates, or one that does not parse" });
      return z.NEVER;
    }
    return pems;
  });
