import { z } from "zod";
import {
  discoveryAnswerSchema,
  mcpServerAnswerSchema,
  mcpServerCreateSchema,
  mcpServerKinds,
  mcpServerListSchema,
  mcpServerPatchSchema,
} from "@countersign/protocol/wire";
import { noContentSchema, pageQuery } from "../http/shared.js";

export { orgParams } from "../http/shared.js";

/** Requests and answers of the MCP server routes; the bodies and the server record are the protocol's. */
export const serverParams = z.strictObject({ org_id: z.uuid(), server_id: z.uuid() });
export const listQuery = z.strictObject({ ...pageQuery, kind: z.enum(mcpServerKinds).optional() });
export const noQuery = z.strictObject({});
export const createBody = mcpServerCreateSchema;
export const patchBody = mcpServerPatchSchema;

export const serverPage = mcpServerListSchema;
export const serverAnswer = mcpServerAnswerSchema;
export const discoveryAnswer = discoveryAnswerSchema;
export const deleted = noContentSchema;
