import { z } from "zod";
import { digestPattern, type Sha256Digest } from "../canonical/index.js";
import { base64urlLength } from "./encoding.js";
import { kidPattern, type Kid } from "./kid.js";

/** The field shapes every evidence document is built from (docs/evidence.md, "Common fields"). */

export const protocolVersion = "0.1" as const;

export type ObjectId = `ko_${string}`;
export const objectIdPattern = /^ko_[0-9a-f]{64}$/;

export const kidSchema = z.custom<Kid>(
  (v) => typeof v === "string" && kidPattern.test(v),
  "expected a KID (kid_ + 64 hex)",
);
export const objectIdSchema = z.custom<ObjectId>(
  (v) => typeof v === "string" && objectIdPattern.test(v),
  "expected an object id (ko_ + 64 hex)",
);
export const digestSchema = z.custom<Sha256Digest>(
  (v) => typeof v === "string" && digestPattern.test(v),
  "expected sha256:<64 lowercase hex>",
);

// Millisecond UTC only, so the text sorts as the instant it names and a second
// implementation never has to normalize offsets or fractions.
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const timestampSchema = z.string().refine((s) => {
  if (!timestampPattern.test(s)) return false;
  const time = Date.parse(s);
  // Refuses 2025-02-30 and the like: the instant must print back as the same text.
  return Number.isFinite(time) && new Date(time).toISOString() === s;
}, "expected YYYY-MM-DDTHH:MM:SS.sssZ");

export const timeOf = (timestamp: string): number => Date.parse(timestamp);

/** RFC 3339 UTC with milliseconds, the only time format of the protocol. */
export const timestamp = (date: Date | number): string => new Date(date).toISOString();

export const signatureSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/)
  .length(base64urlLength(64), "expected an Ed25519 signature as 86 base64url characters");
export const publicKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/)
  .length(base64urlLength(32), "expected an Ed25519 public key as 43 base64url characters");

/** Short single-line texts: names, ids, tools, actions. No control characters. */
export const label = (max = 200) =>
  z
    .string()
    .min(1)
    .max(max)
    // eslint-disable-next-line no-control-regex
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "no control characters");

/** A decimal amount as text (SPEC 8.3: decimals travel as strings). */
export const decimalSchema = z
  .string()
  .regex(/^-?(0|[1-9][0-9]{0,39})(\.[0-9]{1,40})?$/, "expected a decimal");
