import { z } from "zod";
import { digestPattern } from "../../canonical/index.js";
import { objectIdPattern } from "../../evidence/fields.js";

/**
 * The member shapes the Gateway's answers are built from, as JSON Schema can
 * say them (patterns, not refinements), so the OpenAPI document and the
 * Python client's schemas check exactly what the TypeScript client checks.
 */
export const objectIdString = z
  .string()
  .regex(objectIdPattern)
  .describe("an evidence object id: ko_ + 64 hex");
export const argumentsDigestString = z
  .string()
  .regex(digestPattern)
  .describe("sha256:<64 lowercase hex> over the canonical arguments (RFC 8785)");
/** Times the Gateway writes: `Date.toISOString()`, UTC with milliseconds. */
export const gatewayInstant = z.iso.datetime();
