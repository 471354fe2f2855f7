import { z } from "zod";
import { AUTHORIZATION_PATTERN, MAX_AUTHORIZATION_LENGTH } from "@countersign/core/mcp-servers";
import { MAX_URL_LENGTH } from "@countersign/core/net";
import {
  discoveryAnswerSchema,
  mcpServerAnswerSchema,
  mcpServerKinds,
  mcpServerSchema,
  mcpServerStatuses,
  pageSchema,
} from "@countersign/protocol/wire";
import { nameSchema, noContent, pageQuery } from "../http/shared.js";

/** Requests and answers of the MCP server routes; the server record is the protocol's. */
export const orgParams = z.strictObject({ org_id: z.uuid() });
export const serverParams = z.strictObject({ org_id: z.uuid(), server_id: z.uuid() });
export const listQuery = z.strictObject({ ...pageQuery, kind: z.enum(mcpServerKinds).optional() });
export const noQuery = z.strictObject({});
const status = z.enum(mcpServerStatuses);
const url = z.string().min(1).max(MAX_URL_LENGTH);
/** The whole Authorization header value the Gateway sends upstream, e.g. `Bearer ...`. */
const authorization = z
  .string()
  .min(1)
  .max(MAX_AUTHORIZATION_LENGTH)
  .regex(AUTHORIZATION_PATTERN, "a header value on one line");
export const createBody = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("mcp"),
    name: nameSchema,
    url,
    authorization: authorization.optional(),
    status: status.default("active"),
  }),
  z.strictObject({ kind: z.literal("decision_only"), name: nameSchema, status: status.default("active") }),
]);
export const patchBody = z
  .strictObject({
    name: nameSchema,
    status,
    url,
    authorization: authorization.nullable(),
    server_identity: z.record(z.string(), z.unknown()).nullable(),
  })
  .partial();

export const serverPage = pageSchema(mcpServerSchema);
export const serverAnswer = mcpServerAnswerSchema;
export const discoveryAnswer = discoveryAnswerSchema;
export const deleted = noContent;
