import { z } from "zod";
import { amountMappingSchema, pageSchema, toolAnswerSchema, toolSchema } from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

/** Requests and answers of the tool routes; the tool record is the protocol's. */
export const orgParams = z.strictObject({ org_id: z.uuid() });
export const toolParams = z.strictObject({ org_id: z.uuid(), tool_id: z.uuid() });
export const listQuery = z.strictObject({
  ...pageQuery,
  mcp_server_id: z.uuid().optional(),
  enabled: z.enum(["true", "false"]).optional(),
});
export const noQuery = z.strictObject({});
const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line without control characters");
/** SPEC 2.3: unique within the organization, 1 to 128 characters. */
const exposedName = oneLine(128);
const fields = {
  exposed_name: exposedName,
  upstream_name: oneLine(512),
  action: oneLine(200),
  description: z.string().max(4096).nullable(),
  input_schema: z.record(z.string(), z.unknown()),
  amount_mapping: amountMappingSchema.nullable(),
  enabled: z.boolean(),
};
export const createBody = z.strictObject({ mcp_server_id: z.uuid(), ...fields }).partial({
  upstream_name: true,
  description: true,
  input_schema: true,
  amount_mapping: true,
  enabled: true,
});
export const patchBody = z.strictObject(fields).partial();
export const authorizeBody = z.strictObject({ binding_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) });

export const toolPage = pageSchema(toolSchema);
export const toolAnswer = toolAnswerSchema;
